import { ApiBody, ApiOkResponse, ApiOperation, ApiProduces, ApiResponse } from '@nestjs/swagger';
import { ApiProtocolRoutes } from '../protocol-openapi';

/** A JSON-RPC 2.0 answer: `result` on success, `error` otherwise, with the request's `id`. */
const JSON_RPC_RESPONSE = {
  type: 'object',
  required: ['jsonrpc', 'id'],
  properties: {
    jsonrpc: { enum: ['2.0'] },
    id: {
      description: 'The request’s id; null when the request could not be read.',
      oneOf: [{ type: 'string' }, { type: 'integer' }],
    },
    result: { type: 'object', additionalProperties: true },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'integer' },
        message: { type: 'string' },
        data: {},
      },
    },
  },
};

/** The MCP endpoint in the OpenAPI document: JSON-RPC messages, described by the MCP specification. */
export const ApiMcpEndpoint = () =>
  ApiProtocolRoutes(
    'mcp',
    ApiOperation({
      summary: 'MCP server: the organization’s agents as tools',
      description:
        'A Model Context Protocol server on the streamable HTTP transport (stateless: no session; GET and DELETE ' +
        'answer 405), with the key or an end-user token in `Authorization: Bearer` or `x-service-token`. ' +
        '`tools/list` answers one tool per active agent (an end-user token with agent_ids: only those): its name lower-cased, other characters `_`, at most 64, `_2`, `_3`… on a ' +
        'clash; input `{"message", "thread_id"?, "user_id", "agent_version"?}` (`user_id` implied by an end-user token; `agent_version` pins the agent version that answers). `tools/call` starts a thread (or with ' +
        '`thread_id` posts a follow-up), waits for the reply and answers its text and `structuredContent` ' +
        '`{"thread_id", "message_id", "status", "content", "questions", "structured_output"}`, `isError` when the ' +
        'reply ended error or cancelled, or for an unknown tool or thread. With a `progressToken` it sends ' +
        '`notifications/progress` per step. While the service is at capacity (admission control) a ' +
        '`tools/call` is refused before anything is stored, in its 200 answer: JSON-RPC error -32000 `Service at ' +
        'capacity; retry later` with `data.retry_after_seconds`; initialize, tools/list and ping are never refused.',
    }),
    ApiBody({
      description: 'A JSON-RPC 2.0 message of MCP (initialize, tools/list, tools/call, notifications).',
      schema: {
        type: 'object',
        required: ['jsonrpc', 'method'],
        properties: {
          jsonrpc: { enum: ['2.0'] },
          id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
          method: { type: 'string', example: 'tools/call' },
          params: { type: 'object', additionalProperties: true },
        },
      },
    }),
    ApiProduces('application/json', 'text/event-stream'),
    ApiOkResponse({
      description:
        'The JSON-RPC answer, as JSON or as server-sent events (progress notifications, then the answer).',
      content: {
        'application/json': { schema: JSON_RPC_RESPONSE },
        'text/event-stream': {
          schema: {
            type: 'string',
            description: 'Server-sent events, each `event: message` with one JSON-RPC message as its data.',
          },
        },
      },
    }),
    ApiResponse({ status: 202, description: 'A notification or response from the client, accepted.' }),
    ApiResponse({
      status: 401,
      description: 'No key or end-user token, an unknown or revoked key, or an expired or altered token.',
    }),
    ApiResponse({
      status: 406,
      description: 'The client does not accept application/json and text/event-stream.',
    }),
  );
