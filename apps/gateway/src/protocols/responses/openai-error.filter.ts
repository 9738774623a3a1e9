import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, InvalidInputError, TooManyRequestsError } from '@app/contracts';
import { isDependencyUnavailable } from '../../http/dependency-unavailable';
import { RETRY_AFTER_SECONDS, statusOf } from '../../http/http-error.filter';

/** OpenAI's error body: what its SDKs read into their error classes. */
interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  429: 'rate_limit_error',
  503: 'server_error',
};

/**
 * The errors of /openai/v1 in OpenAI's shape (CONTRACTS §18), with the status the rest of the API gives, but a
 * validation error (422 elsewhere) is a 400 `invalid_request_error` naming its field in `param`.
 */
@Catch()
export class OpenAiErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(OpenAiErrorFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    if (reply.sent) return;
    const { status, body } = this.toResponse(error, request);
    if (status === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    if (error instanceof TooManyRequestsError) void reply.header('retry-after', error.retryAfterSeconds);
    void reply.status(status).send(body);
  }

  private toResponse(error: unknown, request: FastifyRequest): { status: number; body: OpenAiErrorBody } {
    const answer = (
      status: number,
      message: string,
      param: string | null = null,
      code: string | null = null,
    ) => ({
      status,
      body: { error: { message, type: TYPES[status] ?? 'server_error', param, code } },
    });
    if (isDependencyUnavailable(error)) {
      this.logger.warn({ err: error, requestId: request.id }, 'dependency unavailable');
      return answer(503, 'Service temporarily unavailable; retry later');
    }
    if (error instanceof InvalidInputError) {
      const [issue] = error.issues;
      // ["body", "input", 0] → "input[0]"; the part of the request is implied.
      const param = issue.loc
        .slice(1)
        .map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`))
        .join('');
      return answer(400, issue.msg, param || null);
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
