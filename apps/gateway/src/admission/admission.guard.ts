import { applyDecorators, CanActivate, Injectable, UseGuards } from '@nestjs/common';
import { ApiErrors } from '../http/api-errors';
import { RunAdmission } from './run-admission';

/**
 * Refuses a JSONL API request that would start a reply while the service is at capacity (RunAdmission), before
 * its body is validated and its Idempotency-Key claimed (a row in PostgreSQL): refused, it costs a comparison and
 * stores nothing at all. A guard, not an interceptor: it only says yes or no, and Nest runs a guard without the
 * per-request observable chain an interceptor costs. The use case it calls asks again (ReplyAdmission): that is
 * the check no route, of any protocol, can miss; this one only comes earlier.
 */
@Injectable()
export class AdmissionGuard implements CanActivate {
  constructor(private readonly admission: RunAdmission) {}

  canActivate(): boolean {
    this.admission.admitReply();
    return true;
  }
}

/** A JSONL API route that starts a reply: refused with 503 and `Retry-After` past capacity, nothing stored. */
export const StartsReply = () =>
  applyDecorators(
    UseGuards(AdmissionGuard),
    ApiErrors([503], {
      503:
        'At capacity (too many runs waiting for a worker, the gateway short of CPU, or replies slow to start), ' +
        'or a dependency is unavailable: nothing was stored; retry after `Retry-After` seconds.',
    }),
  );
