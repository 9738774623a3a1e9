import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { ApiErrors } from '../http/api-errors';
import { Observable } from 'rxjs';
import { RunAdmission } from './run-admission';

/**
 * Refuses a JSONL API request that would start a reply while the service is at capacity (RunAdmission), before
 * its Idempotency-Key is claimed (a row in PostgreSQL) and its body is validated: refused, it costs a comparison
 * and stores nothing at all. The use case it calls asks again (ReplyAdmission): that is the check no route, of any
 * protocol, can miss; this one only comes earlier.
 */
@Injectable()
export class AdmissionInterceptor implements NestInterceptor {
  constructor(private readonly admission: RunAdmission) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    this.admission.admitReply();
    return next.handle();
  }
}

/** A JSONL API route that starts a reply: refused with 503 and `Retry-After` past capacity, nothing stored. */
export const StartsReply = () =>
  applyDecorators(
    UseInterceptors(AdmissionInterceptor),
    ApiErrors([503], {
      503:
        'At capacity (too many runs waiting for a worker, the gateway short of CPU, or replies slow to start), ' +
        'or a dependency is unavailable: nothing was stored; retry after `Retry-After` seconds.',
    }),
  );
