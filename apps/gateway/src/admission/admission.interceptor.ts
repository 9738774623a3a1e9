import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { ApiErrors } from '../http/api-errors';
import { finalize, Observable } from 'rxjs';
import { RunAdmission } from './run-admission';

/** Refuses the request before its handler stores anything while the service is at capacity (RunAdmission). */
@Injectable()
export class AdmissionInterceptor implements NestInterceptor {
  constructor(private readonly admission: RunAdmission) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const started = this.admission.admitReply();
    return next.handle().pipe(finalize(started));
  }
}

/** A route that starts a reply: refused with 503 and `Retry-After` past capacity, nothing stored. */
export const StartsReply = () =>
  applyDecorators(
    UseInterceptors(AdmissionInterceptor),
    ApiErrors([503], {
      503:
        'At capacity (too many runs waiting for a worker, the gateway short of CPU, or replies slow to start), ' +
        'or a dependency is unavailable: nothing was stored; retry after `Retry-After` seconds.',
    }),
  );
