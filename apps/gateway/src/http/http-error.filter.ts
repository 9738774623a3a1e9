import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import {
  AtCapacityError,
  BadRequestError,
  ConflictError,
  DomainError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  NotFoundError,
  PayloadTooLargeError,
  TooManyRequestsError,
  UnauthenticatedError,
  pythonJson,
  VersionConflictError,
} from '@app/contracts';
import { isDependencyUnavailable } from './dependency-unavailable';

/** What a 503 tells a client to wait before retrying: about the time Redis or PostgreSQL take to come back. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * `Retry-After` on a refusal a client may retry, whatever the body a route's protocol writes: admission control's
 * wait when at capacity, RETRY_AFTER_SECONDS for any other 503, the rate limit's wait for a 429.
 */
export function setRetryAfter(reply: FastifyReply, error: unknown, status: number): void {
  if (error instanceof AtCapacityError) void reply.header('retry-after', String(error.retryAfterSeconds));
  else if (status === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  else if (error instanceof TooManyRequestsError) void reply.header('retry-after', error.retryAfterSeconds);
}

/** Status of each domain error, in one place (STYLE §2.6). */
export function statusOf(error: DomainError): number {
  if (error instanceof InvalidInputError) return 422;
  if (error instanceof NotFoundError) return 404;
  if (error instanceof VersionConflictError || error instanceof ConflictError) return 409;
  if (error instanceof UnauthenticatedError) return 401;
  if (error instanceof ForbiddenError) return 403;
  if (error instanceof BadRequestError) return 400;
  if (error instanceof GoneError) return 410;
  if (error instanceof PayloadTooLargeError) return 413;
  if (error instanceof TooManyRequestsError) return 429;
  return 500;
}

/** An error of a Fastify plugin that did not come through Nest's mapping; malformed JSON is `json-body.ts`. */
interface FastifyError {
  statusCode?: number;
  message: string;
}

/**
 * What of an unexpected error may be logged: its class, code and stack frames. Its message and fields stay
 * out, as they can hold what the request sent (a database error carries the rejected row's values).
 */
export function loggable(error: unknown): { errorType: string; code?: unknown; frames?: string } {
  if (!(error instanceof Error)) return { errorType: typeof error };
  const frames = error.stack?.split('\n').slice(1).join('\n');
  return { errorType: error.name, code: (error as { code?: unknown }).code, frames };
}

/**
 * Every error becomes `{"detail": ...}`: a list of issues for 422, a message otherwise (CONTRACTS §2-3).
 * An unavailable dependency (PostgreSQL or Redis refused, terminated or timed out) answers 503 with `Retry-After`,
 * so clients tell a retryable outage from a bug. Unknown errors answer 500 "Internal error" and are logged with
 * their stack and request id.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(HttpErrorFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const { status, body } = this.toResponse(error, request);
    if (reply.sent) return;
    setRetryAfter(reply, error, status);
    // Written as FastAPI writes JSON, so a 422 matches its bytes (a float field's bound is `2.0`).
    void reply.status(status).type('application/json; charset=utf-8').send(pythonJson(body));
  }

  private toResponse(error: unknown, request: FastifyRequest): { status: number; body: { detail: unknown } } {
    // Admission control refusing past capacity: expected under load, so not logged request by request.
    if (error instanceof AtCapacityError) return { status: 503, body: { detail: error.message } };
    if (isDependencyUnavailable(error)) {
      this.logger.warn({ err: error, requestId: request.id }, 'dependency unavailable');
      return { status: 503, body: { detail: 'Service temporarily unavailable; retry later' } };
    }
    if (error instanceof InvalidInputError) return { status: 422, body: { detail: error.issues } };
    if (error instanceof DomainError) {
      const status = statusOf(error);
      if (status === 500)
        this.logger.error({ ...loggable(error), requestId: request.id }, 'unmapped domain error');
      return { status, body: { detail: status === 500 ? 'Internal error' : error.message } };
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const response = error.getResponse();
      const detail =
        typeof response === 'string'
          ? response
          : ((response as { message?: unknown }).message ?? error.message);
      return { status, body: { detail: Array.isArray(detail) ? detail.join('; ') : detail } };
    }
    const fastifyError = error as FastifyError;
    if (fastifyError?.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
      return { status: fastifyError.statusCode, body: { detail: fastifyError.message } };
    }
    this.logger.error({ ...loggable(error), requestId: request.id }, 'request failed');
    return { status: 500, body: { detail: 'Internal error' } };
  }
}
