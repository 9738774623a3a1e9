import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiProduces } from '@nestjs/swagger';
import { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ApiProtocolErrors, ApiProtocolRoutes } from '../protocol-openapi';

/*
 * The A2A routes in the OpenAPI document. Their bodies are A2A v1.0's JSON-RPC messages, described by the A2A
 * specification, not the API's DTOs.
 */

const JSON_RPC_ERROR: SchemaObject = {
  type: 'object',
  required: ['jsonrpc', 'id', 'error'],
  properties: {
    jsonrpc: { enum: ['2.0'] },
    id: {
      oneOf: [{ type: 'string' }, { type: 'integer' }],
      description: "The request's id; null when the request could not be read.",
    },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer', example: -32001 }, message: { type: 'string' }, data: {} },
    },
  },
};

export const ApiA2aRoutes = () =>
  ApiProtocolRoutes(
    'a2a',
    ApiParam({ name: 'agent_id', description: 'The Parley agent the A2A agent is.' }),
    ApiProtocolErrors(JSON_RPC_ERROR, {
      401: 'No key or end-user token, or a refused one: a JSON-RPC error (code -32000).',
      403: "Not allowed with this end-user token (another end user's user_id): a JSON-RPC error.",
      404:
        'The agent is not of the organization, or not one the end-user token may use: a JSON-RPC error ' +
        '`Agent not found` (-32602).',
      503:
        'SendMessage or SendStreamingMessage while the service is at capacity (admission control; `Service at ' +
        'capacity; retry later`, nothing stored; GetTask, CancelTask, SubscribeToTask and approval answers are ' +
        'never refused), or PostgreSQL or Redis unavailable: a JSON-RPC error (code -32000) with Retry-After.',
    }),
  );

export const ApiA2aCard = () =>
  applyDecorators(
    ApiOperation({
      summary: "An agent's A2A Agent Card",
      description:
        'A2A v1.0 Agent Card (ProtoJSON): name, description, the JSON-RPC interface at /a2a/agents/{agent_id} ' +
        '(protocolVersion 1.0), version (the deployment tag), capabilities `{"streaming": true}`, one skill per ' +
        'tool of the agent, security scheme Bearer (a key or an end-user token).',
    }),
    ApiOkResponse({ description: 'The Agent Card.', schema: { type: 'object', additionalProperties: true } }),
  );

export const ApiA2aJsonRpc = () =>
  applyDecorators(
    ApiOperation({
      summary: "An agent's A2A JSON-RPC endpoint",
      description:
        'A2A v1.0 over JSON-RPC 2.0. A Task is a reply, its contextId the thread. `SendMessage` (blocking: ' +
        'answers the task once it completed, failed, was canceled or needs input; with ' +
        '`configuration.returnImmediately` at once, submitted), `SendStreamingMessage` (server-sent events: the ' +
        "Task, then status and artifact updates), `GetTask`, `CancelTask`, `SubscribeToTask` (the task's updates " +
        'from its start, or after the `Last-Event-ID` header, then live). A message with a known contextId ' +
        'posts a follow-up; without one it starts a thread for the end user of the token or of ' +
        '`metadata.user_id` (required with a service key); `metadata.agent_version` pins the agent version that runs ' +
        'the task. States: pending submitted, running working, waiting ' +
        'for an approval or ending with questions input-required, success completed, error failed, cancelled ' +
        'canceled. The reply text is the artifact `reply` (text chunks); tool calls, results and approvals are ' +
        '`data` parts of working status updates. A task waiting for approvals is answered by a message with ' +
        'its taskId: text `approve` or `deny`, or `data` parts `{"call_id"?, "decision", "reason"?}`. Every ' +
        'event carries `id: <seq>` of the reply line it came from. Errors are JSON-RPC errors: -32001 task not ' +
        'found, -32002 not cancelable, -32602 bad params or an unknown agent or context, -32601 unknown method; ' +
        '-32000 with HTTP 401, 403, 429 or 503 (a message refused while the service is at capacity).',
    }),
    ApiBody({
      description: 'A JSON-RPC 2.0 request of A2A v1.0.',
      schema: {
        type: 'object',
        required: ['jsonrpc', 'id', 'method', 'params'],
        properties: {
          jsonrpc: { enum: ['2.0'] },
          id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
          method: {
            enum: ['SendMessage', 'SendStreamingMessage', 'GetTask', 'CancelTask', 'SubscribeToTask'],
          },
          params: { type: 'object', additionalProperties: true },
        },
      },
    }),
    ApiProduces('application/json', 'text/event-stream'),
    ApiOkResponse({
      description: 'The JSON-RPC response (or error), or for the streaming methods its server-sent events.',
      content: {
        'application/json': { schema: { type: 'object', additionalProperties: true } },
        'text/event-stream': { schema: { type: 'string' } },
      },
    }),
  );
