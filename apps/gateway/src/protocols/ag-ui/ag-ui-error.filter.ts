import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, InvalidInputError, TooManyRequestsError } from '@app/contracts';
import { isDependencyUnavailable } from '../../http/dependency-unavailable';
import { RETRY_AFTER_SECONDS, statusOf } from '../../http/http-error.filter';

/** AG-UI's error event, as the body of a request refused before its run started. */
interface RunErrorBody {
  type: 'RUN_ERROR';
  message: string;
  code: string;
  loc?: (string | number)[];
}

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'invalid_input',
  429: 'rate_limited',
  503: 'unavailable',
};

/**
 * Errors of /ag-ui in AG-UI's own form (CONTRACTS §22): the HTTP status the rest of the API gives, with a
 * RUN_ERROR event as the body (`message`, `code`, and for bad input `loc`, the field), which `HttpAgent` puts in
 * the error it raises. A run that fails once started ends with a RUN_ERROR event in its stream instead.
 */
@Catch()
export class AgUiErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(AgUiErrorFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    if (reply.sent) return;
    const { status, body } = this.answer(error, request);
    if (status === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    if (error instanceof TooManyRequestsError) void reply.header('retry-after', error.retryAfterSeconds);
    void reply.status(status).send(body);
  }

  private answer(error: unknown, request: FastifyRequest): { status: number; body: RunErrorBody } {
    const answer = (status: number, message: string, loc?: (string | number)[]) => ({
      status,
      body: {
        type: 'RUN_ERROR' as const,
        message,
        code: CODES[status] ?? 'internal_error',
        ...(loc ? { loc } : {}),
      },
    });
    if (isDependencyUnavailable(error)) {
      this.logger.warn({ err: error, requestId: request.id }, 'dependency unavailable');
      return answer(503, 'Service temporarily unavailable; retry later');
    }
    if (error instanceof InvalidInputError) {
      const [issue] = error.issues;
      return answer(422, issue.msg, issue.loc);
    }
    if (error instanceof DomainError) {
      const status = statusOf(error);
      if (status !== 500) return answer(status, error.message);
    } else if (error instanceof HttpException && error.getStatus() < 500) {
      return answer(error.getStatus(), error.message);
    } else {
      const statusCode = (error as { statusCode?: number })?.statusCode;
      if (statusCode && statusCode >= 400 && statusCode < 500)
        return answer(statusCode, (error as Error).message);
    }
    this.logger.error({ errorType: (error as Error)?.name, requestId: request.id }, 'request failed');
    return answer(500, 'Internal error');
  }
}
