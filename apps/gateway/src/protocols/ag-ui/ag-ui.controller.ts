import {
  Body,
  Controller,
  Headers,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  StreamableFile,
  UseFilters,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { Settings } from '@app/config';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../../auth/end-user-token-allowed.decorator';
import { RedisAvailableInterceptor } from '../../http/redis-available.interceptor';
import { SERVICE_TOKEN_SCHEME } from '../../ops/openapi';
import { StalledStreams } from '../../reply-stream/stalled-streams';
import { invalidProtocolInput } from '../ask-agent.use-case';
import { sequencedServerSentEvents } from '../server-sent-events';
import { AgUiErrorFilter } from './ag-ui-error.filter';
import { parseRunAgentInput } from './run-agent-input';
import { RunAgUiAgent } from './run-ag-ui-agent.use-case';

/**
 * AG-UI 1.0 (CONTRACTS §22): what `@ag-ui/client`'s HttpAgent (and CopilotKit over it) posts, with a key or an
 * end-user token in `Authorization: Bearer`. A run is a reply's stream as AG-UI events, each `id: <seq>`.
 */
@ApiTags('ag-ui')
@ApiSecurity(SERVICE_TOKEN_SCHEME)
@UseFilters(AgUiErrorFilter)
@Controller('ag-ui/agents')
export class AgUiController {
  constructor(
    private readonly runAgent: RunAgUiAgent,
    private readonly settings: Settings,
    private readonly stalled: StalledStreams,
  ) {}

  @Post(':agent_id')
  @HttpCode(200)
  @EndUserTokenAllowed()
  // As POST /chat: refused (503) before anything is stored while Redis, which runs the reply, is down.
  @UseInterceptors(RedisAvailableInterceptor)
  @ApiOperation({
    summary: 'Run an agent (AG-UI)',
    description:
      "A RunAgentInput (AG-UI 1.0): `threadId` a Parley thread id, or the client's own id for a conversation " +
      '(the first run with it starts a thread bound to it for this end user, later runs post follow-ups), ' +
      '`runId`, `messages` (only the last user message is read: its text), `forwardedProps.user_id` (the end ' +
      'user: required with a service key, implied by an end-user token), `resume` (answers to the interrupts ' +
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
  })
  @ApiParam({
    name: 'agent_id',
    description: 'The agent to run (a new thread; a follow-up stays with its own).',
  })
  @ApiQuery({ name: 'after', required: false, type: 'integer', minimum: 0 })
  @ApiBody({
    description: 'RunAgentInput (AG-UI 1.0).',
    schema: {
      type: 'object',
      required: ['threadId', 'runId', 'messages'],
      properties: {
        threadId: { type: 'string', minLength: 1, maxLength: 128 },
        runId: { type: 'string', minLength: 1, maxLength: 128 },
        messages: { type: 'array', items: { type: 'object', additionalProperties: true } },
        forwardedProps: { type: 'object', properties: { user_id: { type: 'string' } } },
        resume: { type: 'array', maxItems: 100, items: { type: 'object', additionalProperties: true } },
      },
    },
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: 'The run as AG-UI events.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiResponse({
    status: 401,
    description: 'No key or end-user token, or a refused one (body: a RUN_ERROR event).',
  })
  @ApiResponse({
    status: 403,
    description: "forwardedProps.user_id names another end user than the token's (body: a RUN_ERROR event).",
  })
  @ApiResponse({ status: 404, description: 'Unknown agent, or a thread id to resume that names no thread.' })
  @ApiResponse({ status: 409, description: 'resume while no reply of the thread waits for an approval.' })
  @ApiResponse({ status: 422, description: 'A bad RunAgentInput: `loc` names the field.' })
  async run(
    @CurrentCaller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Body() body: unknown,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query('after') afterQuery: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    const after = seqOf(lastEventId ?? afterQuery);
    const events = await this.runAgent.execute(caller, agentId, parseRunAgentInput(body), after);
    return sequencedServerSentEvents(events, reply, {
      stallTimeoutMs: this.settings.streamStallTimeoutMs,
      stalled: this.stalled,
    });
  }
}

/** Last-Event-ID or `after`: the seq of the last event the client has. */
function seqOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value)) {
    throw invalidProtocolInput(
      ['header', 'last-event-id'],
      value,
      'Last-Event-ID must be the id (a seq) of an event',
    );
  }
  return Number(value);
}
