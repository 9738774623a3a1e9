import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import {
  BadRequestError,
  ConflictError,
  DomainError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  NotFoundError,
  PayloadTooLargeError,
  UnauthenticatedError,
  VersionConflictError,
} from '@app/contracts';

/** Status of each domain error, in one place (STYLE §2.6). */
function statusOf(error: DomainError): number {
  if (error instanceof InvalidInputError) return 422;
  if (error instanceof NotFoundError) return 404;
  if (error instanceof VersionConflictError || error instanceof ConflictError) return 409;
  if (error instanceof UnauthenticatedError) return 401;
  if (error instanceof ForbiddenError) return 403;
  if (error instanceof BadRequestError) return 400;
  if (error instanceof GoneError) return 410;
  if (error instanceof PayloadTooLargeError) return 413;
  return 500;
}

/** An error of a Fastify plugin that did not come through Nest's mapping; malformed JSON is `json-body.ts`. */
interface FastifyError {
  statusCode?: number;
  message: string;
}

/**
 * Every error becomes `{"detail": ...}`: a list of issues for 422, a message otherwise (CONTRACTS §2-3).
 * Unknown errors answer 500 "Internal error" and are logged with their stack and request id.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(HttpErrorFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const { status, body } = this.toResponse(error, request);
    if (reply.sent) return;
    void reply.status(status).send(body);
  }

  private toResponse(error: unknown, request: FastifyRequest): { status: number; body: { detail: unknown } } {
    if (error instanceof InvalidInputError) return { status: 422, body: { detail: error.issues } };
    if (error instanceof DomainError) {
      const status = statusOf(error);
      if (status === 500) this.logger.error({ err: error, requestId: request.id }, 'unmapped domain error');
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
    this.logger.error({ err: error, requestId: request.id }, 'request failed');
    return { status: 500, body: { detail: 'Internal error' } };
  }
}
