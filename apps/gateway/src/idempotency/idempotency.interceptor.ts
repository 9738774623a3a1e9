import {
  CallHandler,
  createParamDecorator,
  ExecutionContext,
  HttpStatus,
  Injectable,
  NestInterceptor,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { FastifyReply } from 'fastify';
import { createHash } from 'node:crypto';
import { catchError, from, map, Observable, of } from 'rxjs';
import { ConflictError, InvalidInputError, pydanticMessage } from '@app/contracts';
import { IdempotencyKeyRepository, IdempotentWrite, KEY_IN_USE } from '@app/persistence';
import { AuthenticatedRequest } from '../auth/current-caller.decorator';
import { IDEMPOTENCY_WINDOW } from './idempotency-window';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on an answer replayed from an earlier request with the same key. */
const REPLAYED_HEADER = 'idempotent-replayed';
const KEY_MAX_LENGTH = 255;

/** The request as far as idempotency cares: method, path with query, and body as sent. */
function fingerprintOf(request: AuthenticatedRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

const stringOr = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The end user whose key space holds the request's key (CONTRACTS §21): an end-user token's own user, whatever the
 * request says; for a service key, the end user the request names (`user_id` in the query, the body, or the body's
 * `options`), or '' when it names none. So a key never answers one end user with another's answer, and a service
 * key retrying for an end user finds that user's record. (A request naming two different users is refused by its
 * route, which then releases the claim.)
 */
function endUserOf(request: AuthenticatedRequest): string {
  if (request.caller?.endUser) return request.caller.endUser.userId;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<
    string,
    unknown
  >;
  const options = (body.options && typeof body.options === 'object' ? body.options : {}) as Record<
    string,
    unknown
  >;
  return stringOr(query.user_id) ?? stringOr(body.user_id) ?? stringOr(options.user_id) ?? '';
}

function keyIssue(key: string, msg: string, type: string, ctx?: Record<string, unknown>) {
  return new InvalidInputError([
    { loc: ['header', IDEMPOTENCY_HEADER], msg, type, input: key, ...(ctx && { ctx }) },
  ]);
}

/** A key of the wrong length, in Pydantic's words for a `str` field with that bound. */
const lengthIssue = (key: string, type: string, ctx: Record<string, unknown>) =>
  keyIssue(key, pydanticMessage(type, ctx), type, ctx);

/** The claim a request holds, for its route to record its answer with (`@IdempotentWriteOf()`). */
export type RequestWithIdempotentWrite = AuthenticatedRequest & { idempotentWrite?: IdempotentWrite };

/**
 * The Idempotency-Key claim the interceptor below leaves on a `@SafelyRetried()` request, for the route to hand to
 * its use case; undefined when the request sent no key.
 */
export const IdempotentWriteOf = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IdempotentWrite | undefined =>
    context.switchToHttp().getRequest<RequestWithIdempotentWrite>().idempotentWrite,
);

/**
 * The `Idempotency-Key` header (IETF draft httpapi-idempotency-key-header) on a write: the first request with a
 * key runs and its answer is kept 24 h in PostgreSQL, in the key space of the organization and the request's end
 * user (endUserOf); a retry with the same key and the same request gets that answer again without running (header
 * `idempotent-replayed: true`); the same key with another request is 422; a retry while the first is still running
 * is 409. The route records its answer in the transaction that stores
 * its effect (IdempotencyKeyRepository.recordAnswer), so whatever fails after that commit (an enqueue, the
 * answer's way back, this process) leaves the answer for a retry; a request that fails before it stored nothing
 * and releases its key, so a retry runs it afresh. Without the header the route runs as usual.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly keys: IdempotencyKeyRepository,
    private readonly reflector: Reflector,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined || !request.caller) return next.handle();
    const key = Array.isArray(header) ? header.join(',') : header;
    if (key.length === 0) throw lengthIssue(key, 'string_too_short', { min_length: 1 });
    if (key.length > KEY_MAX_LENGTH)
      throw lengthIssue(key, 'string_too_long', { max_length: KEY_MAX_LENGTH });
    const { orgId } = request.caller;
    const userId = endUserOf(request);
    const fingerprint = fingerprintOf(request);
    const claim = await this.keys.claim(orgId, userId, key, fingerprint, IDEMPOTENCY_WINDOW);
    if (claim.state !== 'claimed' && claim.fingerprint !== fingerprint) {
      throw keyIssue(
        key,
        'Idempotency-Key was already used with a different request',
        'idempotency_key_reused',
      );
    }
    if (claim.state === 'processing') {
      throw new ConflictError(KEY_IN_USE);
    }
    if (claim.state === 'completed') {
      void context.switchToHttp().getResponse<FastifyReply>().header(REPLAYED_HEADER, 'true');
      return of(claim.body);
    }
    const statusCode =
      this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ??
      (request.method === 'POST' ? HttpStatus.CREATED : HttpStatus.OK);
    const write = new IdempotentWrite(orgId, userId, key, claim.token, statusCode);
    (request as RequestWithIdempotentWrite).idempotentWrite = write;
    return next.handle().pipe(
      map((body: unknown) => {
        if (!write.recorded)
          throw new Error(`${request.method} ${request.url} did not record its idempotent answer`);
        return body;
      }),
      catchError((error: unknown) =>
        from(
          this.keys.release(write).then(
            () => Promise.reject(error),
            () => Promise.reject(error),
          ),
        ),
      ),
    );
  }
}
