import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiQuery } from '@nestjs/swagger';
import { PG_INTEGER_MAX } from '@app/contracts';
import { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ApiProtocolErrors, ApiProtocolRoutes } from '../protocol-openapi';

/*
 * The Responses routes in the OpenAPI document. Their bodies are OpenAI's wire format, not the API's DTOs, so they
 * are described by schema here rather than by classes.
 */

const OPENAI_ERROR: SchemaObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'param', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string', example: 'invalid_request_error' },
        param: { type: 'string', nullable: true, example: 'input' },
        code: { type: 'string', nullable: true },
      },
    },
  },
};

const OUTPUT_ITEM: SchemaObject = {
  oneOf: [
    {
      type: 'object',
      description: 'A tool call the agent made (already run by Parley).',
      properties: {
        type: { enum: ['function_call'] },
        id: { type: 'string' },
        call_id: { type: 'string' },
        name: { type: 'string', example: 'clock' },
        arguments: { type: 'string', description: 'JSON text of the arguments.' },
        status: { enum: ['in_progress', 'completed', 'incomplete'] },
      },
    },
    {
      type: 'object',
      description: "The agent's text.",
      properties: {
        type: { enum: ['message'] },
        id: { type: 'string' },
        role: { enum: ['assistant'] },
        status: { enum: ['in_progress', 'completed', 'incomplete'] },
        content: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              type: { enum: ['output_text'] },
              text: { type: 'string' },
              annotations: { type: 'array', items: {}, maxItems: 0 },
            },
          },
        },
      },
    },
  ],
};

const RESPONSE_OBJECT: SchemaObject = {
  type: 'object',
  description: "A Parley reply as an OpenAI Response; `id` is `resp_` + the reply's message id.",
  properties: {
    id: { type: 'string', example: 'resp_0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11' },
    object: { enum: ['response'] },
    created_at: { type: 'integer', description: 'Unix seconds.' },
    status: {
      enum: ['queued', 'in_progress', 'completed', 'failed', 'cancelled'],
      description: 'Reaching max_tool_calls (max_steps) is completed, never incomplete.',
    },
    model: { type: 'string', description: 'The agent id.' },
    output: { type: 'array', items: OUTPUT_ITEM },
    output_text: { type: 'string' },
    previous_response_id: { type: 'string', nullable: true },
    user: { type: 'string', nullable: true, description: 'The end user.' },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    usage: {
      type: 'object',
      nullable: true,
      properties: {
        input_tokens: { type: 'integer' },
        output_tokens: { type: 'integer' },
        total_tokens: { type: 'integer' },
      },
    },
    error: {
      type: 'object',
      nullable: true,
      properties: { code: { type: 'string', example: 'cancelled' }, message: { type: 'string' } },
    },
  },
};

const EVENT_STREAM = {
  'text/event-stream': {
    schema: {
      type: 'string',
      description:
        'Server-sent events, each `event: <type>` and `data: <json>` with `type` and a gap-free ' +
        '`sequence_number`: response.created, response.in_progress, then per output item ' +
        'response.output_item.added, (for text) response.content_part.added, response.output_text.delta…, ' +
        'response.output_text.done, response.content_part.done, (for a tool call) ' +
        'response.function_call_arguments.done, then response.output_item.done; last response.completed or ' +
        'response.failed (a cancelled reply: status cancelled, error.code cancelled). Two events of this ' +
        'implementation, which a client may skip: parley:model_fallback (step, from, to, reason: another ' +
        'model answered a step) and parley:guardrail_triggered (stage, kind, action).',
    },
  },
};

const errors = (descriptions: Record<number, string>) => ApiProtocolErrors(OPENAI_ERROR, descriptions);

const COMMON_ERRORS = {
  401: 'No key or end-user token (Authorization: Bearer, or x-service-token), an unknown or revoked key, or an expired or altered token.',
  403: "A user other than the end-user token's.",
  429: 'Too many requests (RATE_LIMIT_PER_MINUTE).',
  503: 'PostgreSQL or Redis unavailable; retry after Retry-After.',
};

const RESPONSE_ID = ApiParam({ name: 'response_id', example: 'resp_0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11' });

export const ApiResponsesRoutes = () => ApiProtocolRoutes('responses', errors(COMMON_ERRORS));

export const ApiCreateResponse = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Ask an agent (OpenAI Responses API)',
      description:
        'The OpenAI Responses wire format: point an OpenAI SDK at `<gateway>/openai/v1` with the key (or an ' +
        'end-user token, which is its user and only its agents) as its API key. `model` is the agent id; the ' +
        'last user message of `input` is the message; without ' +
        '`previous_response_id` a new thread starts, with it the message is a follow-up in that ' +
        "response's thread. Waits for the end and answers the completed Response; `stream: true` answers " +
        'its events as they come; `background: true` answers at once (status queued).',
    }),
    ApiBody({
      schema: {
        type: 'object',
        // `user` is required with a service key only: an end-user token implies it.
        required: ['model', 'input'],
        properties: {
          model: { type: 'string', description: 'The agent id.' },
          input: {
            oneOf: [
              { type: 'string' },
              {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    role: { enum: ['user', 'assistant', 'system', 'developer'] },
                    content: {
                      oneOf: [
                        { type: 'string' },
                        {
                          type: 'array',
                          items: {
                            type: 'object',
                            properties: { type: { enum: ['input_text'] }, text: { type: 'string' } },
                          },
                        },
                      ],
                    },
                  },
                },
              },
            ],
            description: 'At most 30000 characters are taken, from the last user message.',
          },
          previous_response_id: { type: 'string', description: "Continue that response's thread." },
          user: {
            type: 'string',
            description:
              "The end user: required with a service key; with an end-user token, the token's or left out.",
          },
          stream: { type: 'boolean', default: false },
          background: { type: 'boolean', default: false },
          max_tool_calls: {
            type: 'integer',
            minimum: 1,
            maximum: PG_INTEGER_MAX,
            description: "The reply's max_steps.",
          },
          metadata: {
            type: 'object',
            additionalProperties: { type: 'string' },
            description:
              'Kept on the reply and shown in its Response: at most 16 keys of 64 characters, values of 512.',
          },
          prompt: {
            type: 'object',
            description:
              'Pins the agent version that answers, as OpenAI pins a stored prompt: `id` (optional) is the agent ' +
              'named by `model`, `version` one of its versions (GET /agents/{id}/versions). Omitted: the latest.',
            properties: {
              id: { type: 'string' },
              version: {
                oneOf: [
                  { type: 'string', pattern: '^[0-9]+$' },
                  { type: 'integer', minimum: 1 },
                ],
              },
            },
            required: ['version'],
          },
        },
      },
    }),
    ApiProduces('application/json', 'text/event-stream'),
    ApiOkResponse({
      description: 'The Response (completed, or queued with background), or with stream its events.',
      content: { 'application/json': { schema: RESPONSE_OBJECT }, ...EVENT_STREAM },
    }),
    errors({
      400: 'A bad request: `param` names the field (elsewhere in the API a 422).',
      404: 'The agent (model) or previous_response_id is not of the organization, or not of the user.',
      503:
        'At capacity (admission control: too many runs waiting for a worker, or the gateway short of CPU), ' +
        'type server_error, message `Service at capacity; retry later`, or PostgreSQL or Redis unavailable: ' +
        'nothing was stored; retry after Retry-After.',
    }),
  );

export const ApiRetrieveResponse = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Retrieve a response, or stream its events again',
      description:
        'The Response as it stands. With `stream=true`, its events after `starting_after` (a sequence_number), ' +
        'then live to its end: at any time after the reply, not only for minutes.',
    }),
    RESPONSE_ID,
    ApiQuery({ name: 'stream', required: false, enum: ['true', 'false'] }),
    ApiQuery({ name: 'starting_after', required: false, type: 'integer', minimum: 0 }),
    ApiProduces('application/json', 'text/event-stream'),
    ApiOkResponse({
      description: 'The Response, or with stream=true its events.',
      content: { 'application/json': { schema: RESPONSE_OBJECT }, ...EVENT_STREAM },
    }),
    errors({ 400: 'starting_after is not a sequence_number.', 404: 'No such response for this key.' }),
  );

export const ApiCancelResponse = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Cancel a response',
      description:
        'Stops a live reply and answers the Response once it ended (status cancelled); an ended one as it is.',
    }),
    RESPONSE_ID,
    ApiOkResponse({
      content: { 'application/json': { schema: RESPONSE_OBJECT } },
      description: 'The Response.',
    }),
    errors({ 404: 'No such response for this key.' }),
  );
