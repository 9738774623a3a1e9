import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { AtCapacityError, DomainError, InvalidInputError, NotFoundError } from '@app/contracts';
import { isDependencyUnavailable } from '../../http/dependency-unavailable';
import { setRetryAfter, statusOf } from '../../http/http-error.filter';
import { requestIdOf } from '../mcp/json-rpc-errors';

/** JSON-RPC 2.0 and A2A v1.0 error codes (A2A specification, "Error Handling"). */
export const A2A_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** JSON-RPC's range for server errors: credentials refused, too many requests, unavailable or at capacity. */
  serverError: -32000,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
} as const;

export const TASK_NOT_FOUND = 'Task not found';
export const AGENT_NOT_FOUND = 'Agent not found';

/** An error the A2A endpoint answers with its own JSON-RPC code. */
export class A2aError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const invalidParams = (message: string, data?: unknown) =>
  new A2aError(A2A_ERRORS.invalidParams, message, data);

/** The JSON-RPC error, the HTTP status of a JSON-RPC answer, and the status a plain GET answers with. */
interface Answer {
  status: number;
  httpStatus: number;
  code: number;
  message: string;
  data?: unknown;
}

interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string; data?: unknown };
}

/**
 * Every error of /a2a as a JSON-RPC error answer (CONTRACTS §22), with the request's id. A refused credential,
 * a rate limit, an unavailable dependency or a service at capacity (admission control refusing SendMessage or
 * SendStreamingMessage) keep their HTTP status (401, 403, 429, 503 with `Retry-After`), as the rest of the API
 * answers them, so a load balancer may retry a 503 elsewhere; their JSON-RPC code is the server error, -32000.
 * Any other error of a request that reached its method is a JSON-RPC error in a 200, as JSON-RPC over HTTP has
 * it; an agent the caller may not see is a 404. The Agent Card's errors keep their HTTP status. An unknown task is
 * A2A's TaskNotFoundError (-32001); bad params, an unknown agent or context, a conflict: invalid params (-32602)
 * saying which.
 */
@Catch()
export class A2aErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(A2aErrorFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    if (reply.sent) return;
    const answer = this.answer(error, request);
    const { code, message, data } = answer;
    // The Agent Card is a plain GET: its errors keep their HTTP status (404 for an agent not to be seen).
    const status = request.method === 'GET' ? answer.httpStatus : answer.status;
    setRetryAfter(reply, error, status);
    const body: JsonRpcErrorBody = {
      jsonrpc: '2.0',
      id: requestIdOf(request.body),
      error: data === undefined ? { code, message } : { code, message, data },
    };
    void reply.status(status).header('content-type', 'application/json').send(body);
  }

  private answer(error: unknown, request: FastifyRequest): Answer {
    if (error instanceof A2aError) {
      return { status: 200, httpStatus: 400, code: error.code, message: error.message, data: error.data };
    }
    if (error instanceof AtCapacityError) {
      // Admission control refused to start the task: nothing was stored, nothing to log.
      return { status: 503, httpStatus: 503, code: A2A_ERRORS.serverError, message: error.message };
    }
    if (isDependencyUnavailable(error)) {
      this.logger.warn({ err: error, requestId: request.id }, 'dependency unavailable');
      const message = 'Service temporarily unavailable; retry later';
      return { status: 503, httpStatus: 503, code: A2A_ERRORS.serverError, message };
    }
    if (error instanceof InvalidInputError) {
      const [issue] = error.issues;
      const data = { loc: issue.loc };
      return { status: 200, httpStatus: 422, code: A2A_ERRORS.invalidParams, message: issue.msg, data };
    }
    if (error instanceof NotFoundError && error.message === AGENT_NOT_FOUND) {
      // The resource the URL names is not there: 404, as the rest of the API answers it.
      return { status: 404, httpStatus: 404, code: A2A_ERRORS.invalidParams, message: error.message };
    }
    if (error instanceof NotFoundError && error.message === TASK_NOT_FOUND) {
      return { status: 200, httpStatus: 404, code: A2A_ERRORS.taskNotFound, message: error.message };
    }
    const httpStatus =
      error instanceof DomainError
        ? statusOf(error)
        : error instanceof HttpException
          ? error.getStatus()
          : ((error as { statusCode?: number })?.statusCode ?? 500);
    const message = (error as Error).message;
    if ([401, 403, 429].includes(httpStatus)) {
      return { status: httpStatus, httpStatus, code: A2A_ERRORS.serverError, message };
    }
    if (httpStatus >= 400 && httpStatus < 500) {
      return { status: 200, httpStatus, code: A2A_ERRORS.invalidParams, message };
    }
    this.logger.error({ errorType: (error as Error)?.name, requestId: request.id }, 'request failed');
    return { status: 200, httpStatus: 500, code: A2A_ERRORS.internalError, message: 'Internal error' };
  }
}
