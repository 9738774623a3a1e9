import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidInputError } from '@app/contracts';
import { HttpErrorFilter } from '../../http/http-error.filter';
import { jsonRpcError, requestIdOf } from './json-rpc-errors';

/**
 * Errors of POST /mcp raised before the MCP transport has the message. A request that fails validation (a NUL
 * character anywhere) is a JSON-RPC `Invalid params` error, HTTP 400, as the transport answers a message it
 * cannot take; every other error (401, 403, 429, 503, 500) stays the HTTP error MCP clients expect from the
 * transport's layer, answered by the gateway's filter.
 */
@Catch()
export class McpErrorFilter implements ExceptionFilter {
  private readonly http = new HttpErrorFilter();

  catch(error: unknown, host: ArgumentsHost): void {
    if (!(error instanceof InvalidInputError)) return this.http.catch(error, host);
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    if (reply.sent) return;
    const [issue] = error.issues;
    const message = `Invalid params: ${issue.msg} at ${issue.loc.slice(1).join('.') || 'the body'}`;
    void reply.status(400).send(jsonRpcError(ErrorCode.InvalidParams, message, requestIdOf(request.body)));
  }
}
