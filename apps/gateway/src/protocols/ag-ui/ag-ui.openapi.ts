import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiResponse,
} from '@nestjs/swagger';
import { ApiProtocolRoutes } from '../protocol-openapi';

/** AG-UI's RUN_ERROR event, the body of a run refused before it started. */
const RUN_ERROR_BODY = {
  type: 'object',
  required: ['type', 'message', 'code'],
  properties: {
    type: { enum: ['RUN_ERROR'] },
    message: { type: 'string' },
    code: { type: 'string', example: 'unavailable' },
    loc: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
  },
};

/** The AG-UI routes in the OpenAPI document: RunAgentInput is AG-UI's wire format, described by schema. */
export const ApiAgUiRoutes = () => ApiProtocolRoutes('ag-ui');

export const ApiRunAgent = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Run an agent (AG-UI)',
      description:
        "A RunAgentInput (AG-UI 1.0): `threadId` a Parley thread id, or the client's own id for a conversation " +
        '(the first run with it starts a thread bound to it for this end user, later runs post follow-ups), ' +
        '`runId`, `messages` (only the last user message is read: its text), `forwardedProps.user_id` (the end ' +
        'user: required with a service key, implied by an end-user token), `forwardedProps.agent_version` (the ' +
        'agent version that answers; omitted: the latest), `resume` (answers to the interrupts ' +
        'the previous run ended with: `interruptId` the call id, `resolved` with payload `{"decision": "approve" | ' +
        '"deny", "reason"?}`, or `cancelled`, a denial). The answer is text/event-stream, each event `id: <seq>` ' +
        'of the reply line it came from: RUN_STARTED, STEP_STARTED/STEP_FINISHED per step, ' +
        'TEXT_MESSAGE_START/CONTENT/END (one assistant message per step), TOOL_CALL_START/ARGS/END and ' +
        'TOOL_CALL_RESULT, CUSTOM `parley.questions`, then RUN_FINISHED (outcome success; cancelled for a ' +
        'cancelled reply; interrupt, one interrupt per waiting approval with `toolCallId` and a `responseSchema`) ' +
        "or RUN_ERROR. With `Last-Event-ID: <seq>` (or `?after=<seq>`) the run continues the thread's latest " +
        'reply after that event, on any gateway: RUN_STARTED (and the step and message then open) come again, ' +
        'every other event once. Errors before the run starts: the status the rest of the API gives, body ' +
        '`{"type": "RUN_ERROR", "message", "code", "loc"?}`. A run is stopped with POST /ai-sdk/chat/{threadId}/stop.',
    }),
    ApiParam({
      name: 'agent_id',
      description: 'The agent to run (a new thread; a follow-up stays with its own).',
    }),
    ApiQuery({ name: 'after', required: false, type: 'integer', minimum: 0 }),
    ApiBody({
      description: 'RunAgentInput (AG-UI 1.0).',
      schema: {
        type: 'object',
        required: ['threadId', 'runId', 'messages'],
        properties: {
          threadId: { type: 'string', minLength: 1, maxLength: 128 },
          runId: { type: 'string', minLength: 1, maxLength: 128 },
          messages: { type: 'array', items: { type: 'object', additionalProperties: true } },
          forwardedProps: {
            type: 'object',
            properties: { user_id: { type: 'string' }, agent_version: { type: 'integer', minimum: 1 } },
          },
          resume: { type: 'array', maxItems: 100, items: { type: 'object', additionalProperties: true } },
        },
      },
    }),
    ApiProduces('text/event-stream'),
    ApiOkResponse({
      description: 'The run as AG-UI events.',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    }),
    ApiResponse({
      status: 401,
      description: 'No key or end-user token, or a refused one (body: a RUN_ERROR event).',
    }),
    ApiResponse({
      status: 403,
      description:
        "forwardedProps.user_id names another end user than the token's (body: a RUN_ERROR event).",
    }),
    ApiResponse({
      status: 404,
      description: 'Unknown agent, or a thread id to resume that names no thread.',
    }),
    ApiResponse({ status: 409, description: 'resume while no reply of the thread waits for an approval.' }),
    ApiResponse({ status: 422, description: 'A bad RunAgentInput: `loc` names the field.' }),
    ApiResponse({
      status: 503,
      description:
        'A run with a message while the service is at capacity (admission control: code `unavailable`, message ' +
        '`Service at capacity; retry later`, nothing stored; a run with `resume` or `Last-Event-ID` is never ' +
        'refused), or PostgreSQL or Redis unavailable; retry after Retry-After (body: a RUN_ERROR event).',
      content: { 'application/json': { schema: RUN_ERROR_BODY } },
    }),
  );
