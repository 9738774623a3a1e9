import { Controller, Delete, Get, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../../auth/end-user-token-allowed.decorator';
import { AgentTools } from './agent-tools';
import { agentsMcpServer } from './agents-mcp-server';
import { NOT_ONE_MESSAGE } from './json-rpc-errors';
import { McpErrorFilter } from './mcp-error.filter';
import { ApiMcpEndpoint } from './mcp.openapi';

/** JSON-RPC's answer to GET and DELETE: a stateless server has no session to stream to or end. */
const NO_SESSION = {
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Method not allowed: this server is stateless' },
  id: null,
};

/**
 * The MCP server at /mcp (CONTRACTS §18), on the SDK's streamable HTTP transport, stateless: each POST gets a
 * server and transport of its own for the caller the guard identified (a key, or an end-user token: then only its
 * user and agents), so any gateway replica serves any call. The guard's 401 is an HTTP error, as MCP clients expect.
 */
@UseFilters(McpErrorFilter)
@Controller('mcp')
export class McpController {
  constructor(private readonly tools: AgentTools) {}

  @Post()
  @ApiMcpEndpoint()
  @EndUserTokenAllowed()
  async handle(
    @CurrentCaller() caller: Caller,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return void reply.status(400).send(NOT_ONE_MESSAGE);
    }
    const server = agentsMcpServer(caller, this.tools);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // The transport writes the response itself (JSON, or SSE while a call sends progress), with the headers the
    // gateway's hooks gave the reply (x-request-id, security headers).
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }

  @Get()
  @HttpCode(405)
  @ApiExcludeEndpoint()
  @EndUserTokenAllowed()
  openStream(): typeof NO_SESSION {
    return NO_SESSION;
  }

  @Delete()
  @HttpCode(405)
  @ApiExcludeEndpoint()
  @EndUserTokenAllowed()
  endSession(): typeof NO_SESSION {
    return NO_SESSION;
  }
}
