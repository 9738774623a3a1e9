import { ArgumentsHost, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { AtCapacityError, DomainError, InvalidInputError, ValidationIssue } from '@app/contracts';
import { isDependencyUnavailable } from '../http/dependency-unavailable';
import { setRetryAfter, statusOf } from '../http/http-error.filter';

/** A failed request as every protocol sees it: the status the rest of the API gives, and why. */
export interface RequestFailure {
  status: number;
  message: string;
  /** For bad input (422), the first issue: the field a protocol's body may name. */
  issue?: ValidationIssue;
}

/**
 * The errors of a protocol's routes in that protocol's own body (OpenAI's, AG-UI's), with the status, the
 * `Retry-After` and the logging the rest of the API gives: one classification of what failed, and a subclass
 * that writes it in its protocol's words.
 */
export abstract class ProtocolErrorFilter<Body> implements ExceptionFilter {
  protected abstract readonly logger: Logger;

  /** The protocol's answer to a failure: its status (a protocol may answer bad input otherwise) and body. */
  protected abstract answer(failure: RequestFailure): { status: number; body: Body };

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    if (reply.sent) return;
    const { status, body } = this.answer(this.failureOf(error, request));
    setRetryAfter(reply, error, status);
    void reply.status(status).send(body);
  }

  private failureOf(error: unknown, request: FastifyRequest): RequestFailure {
    // Admission control refusing a new reply: the service works as meant, nothing to log.
    if (error instanceof AtCapacityError) return { status: 503, message: error.message };
    if (isDependencyUnavailable(error)) {
      this.logger.warn({ err: error, requestId: request.id }, 'dependency unavailable');
      return { status: 503, message: 'Service temporarily unavailable; retry later' };
    }
    if (error instanceof InvalidInputError) {
      const [issue] = error.issues;
      return { status: 422, message: issue.msg, issue };
    }
    if (error instanceof DomainError) {
      const status = statusOf(error);
      if (status !== 500) return { status, message: error.message };
    } else if (error instanceof HttpException && error.getStatus() < 500) {
      return { status: error.getStatus(), message: error.message };
    } else {
      const statusCode = (error as { statusCode?: number })?.statusCode;
      if (statusCode && statusCode >= 400 && statusCode < 500)
        return { status: statusCode, message: (error as Error).message };
    }
    this.logger.error({ errorType: (error as Error)?.name, requestId: request.id }, 'request failed');
    return { status: 500, message: 'Internal error' };
  }
}
