import { Body, Get, HttpCode, Param, Post, Query, Res, StreamableFile, UseGuards } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { AiSdkChatDto } from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../../auth/end-user-token-allowed.decorator';
import { ServiceApiController } from '../../auth/service-api-controller.decorator';
import { ApiErrors } from '../../http/api-errors';
import { RedisAvailableGuard } from '../../http/redis-available.guard';
import { jsonlBody } from '../../reply-stream/jsonl-body';
import { ReplyStreamLimits } from '../../reply-stream/reply-stream-limits';
import { AiSdkChatOwnerQuery, AiSdkChatParams } from './ai-sdk-chat.dto';
import { ReplyWaits } from '../reply-waits';
import { ChatReplyStream, uiMessageSse } from './ui-message-sse';
import { LoadChatMessages } from './use-cases/load-chat-messages.use-case';
import { ResumeChatStream } from './use-cases/resume-chat-stream.use-case';
import { SendChatMessage } from './use-cases/send-chat-message.use-case';
import { StopChat } from './use-cases/stop-chat.use-case';

/** The AI SDK's UI message stream, v1: the headers its client checks, and proxies must not buffer. */
const UI_MESSAGE_STREAM_HEADERS = {
  'x-vercel-ai-ui-message-stream': 'v1',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

const SSE_DESCRIPTION =
  'text/event-stream of the AI SDK UI message stream v1 (header x-vercel-ai-ui-message-stream: v1): frames ' +
  '`id: <seq>` + `data: <chunk JSON>`, ending with `data: [DONE]` once the reply ended, or once it waits for a ' +
  'person: after the tool-approval-request of each waiting call of the step come finish-step and finish ' +
  '(finishReason tool-calls), as with streamText, and the reply waits on. start (messageId: the ' +
  'reply id); start-step / finish-step per step; text-start / text-delta / text-end (one id per step); ' +
  'tool-input-available, tool-output-available or tool-output-error (dynamic tools); data-parley-questions; ' +
  'finish, error then finish for a failed reply, abort for a cancelled one. Heartbeats are SSE comments.';

/**
 * The AI SDK's chat protocol (CONTRACTS §17): what `useChat` with `DefaultChatTransport` calls, with an
 * end-user token or a service key.
 */
@ServiceApiController('ai-sdk', 'ai-sdk/chat')
export class AiSdkChatController {
  constructor(
    private readonly sendChatMessage: SendChatMessage,
    private readonly resumeChatStream: ResumeChatStream,
    private readonly stopChat: StopChat,
    private readonly loadChatMessages: LoadChatMessages,
    private readonly limits: ReplyStreamLimits,
    private readonly waits: ReplyWaits,
  ) {}

  @EndUserTokenAllowed()
  @Post()
  @HttpCode(200)
  // As POST /chat: refused (503) before anything is stored while Redis, which runs the reply, is down.
  @UseGuards(RedisAvailableGuard)
  @ApiProduces('text/event-stream')
  @ApiOperation({
    summary: 'Send a chat message and stream the reply (AI SDK useChat)',
    description:
      'The request DefaultChatTransport sends, with agent_id (and, with a service key, user_id) in its body. ' +
      'The first request with a chat id unknown for this end user starts a thread bound to it; later ones post ' +
      'follow-ups to it. Only the last user message is read (its text parts joined). trigger ' +
      'regenerate-message regenerates the reply named by messageId (the last one when absent or not a reply), ' +
      'interrupting it if still live; the replaced reply stays stored as another branch. A request whose last ' +
      'message is the waiting reply with tool parts in state approval-responded (addToolApprovalResponse) ' +
      'records those decisions and answers the rest of the reply, after its last tool-approval-request. ' +
      SSE_DESCRIPTION,
  })
  @ApiOkResponse({
    description: 'The reply as the UI message stream.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiErrors([400, 404, 409, 413, 503], {
    404: "Agent not found (a new chat), the chat's thread is gone, or regenerate-message for an unknown chat.",
    409: 'Approval answers while no reply of the chat waits for one.',
    503:
      'A message or regenerate-message while the service is at capacity (admission control; approval answers ' +
      'are never refused), or PostgreSQL or Redis unavailable: nothing was stored; retry after Retry-After.',
  })
  async send(
    @CurrentCaller() caller: Caller,
    @Body() body: AiSdkChatDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    return this.sse(caller, await this.sendChatMessage.execute(caller, body), reply);
  }

  @EndUserTokenAllowed()
  @Get(':id/stream')
  @ApiProduces('text/event-stream')
  @ApiOperation({
    summary: "Resume a chat's live reply (AI SDK useChat resume)",
    description:
      "204 when the chat has no live reply; else that reply's stream from its start, live to its end (or to its " +
      'approval requests while it waits for a person). ' +
      SSE_DESCRIPTION,
  })
  @ApiOkResponse({
    description: 'The live reply as the UI message stream.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiNoContentResponse({ description: 'Nothing is live in this chat.' })
  @ApiErrors([404], { 404: "Chat not found: unknown, or another end user's." })
  async resume(
    @CurrentCaller() caller: Caller,
    @Param() params: AiSdkChatParams,
    @Query() query: AiSdkChatOwnerQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile | undefined> {
    const stream = await this.resumeChatStream.execute(caller, params.id, query.user_id);
    if (stream) return this.sse(caller, stream, reply);
    void reply.status(204);
    return undefined;
  }

  @EndUserTokenAllowed()
  @Get(':id/messages')
  @ApiOperation({
    summary: "A chat's messages as UI messages (a reloaded page's history)",
    description:
      'What `useChat` shows for this chat id, for `useChat({id, messages})` after a reload: the messages of the ' +
      'branch the thread shows, oldest first, as AI SDK UI messages (`id`, `role`, `parts`: text, step-start, ' +
      'dynamic-tool parts with their state, data-parley-questions), each reply folded from its stored lines by ' +
      "the AI SDK's own reader. A reply still live is left out: `useChat({resume: true})` streams it.",
  })
  @ApiOkResponse({
    description: 'The UI messages, oldest first.',
    schema: { type: 'array', items: { type: 'object', additionalProperties: true } },
  })
  @ApiErrors([404], { 404: "Chat not found: unknown, or another end user's." })
  messages(
    @CurrentCaller() caller: Caller,
    @Param() params: AiSdkChatParams,
    @Query() query: AiSdkChatOwnerQuery,
  ): Promise<unknown[]> {
    return this.loadChatMessages.execute(caller, params.id, query.user_id);
  }

  @EndUserTokenAllowed()
  @Post(':id/stop')
  @HttpCode(204)
  @ApiOperation({
    summary: "Stop a chat's live reply",
    description: 'The reply ends cancelled; the thread stays.',
  })
  @ApiNoContentResponse({ description: 'Cancelled (or nothing was live).' })
  @ApiErrors([404], { 404: "Chat not found: unknown, or another end user's." })
  stop(
    @CurrentCaller() caller: Caller,
    @Param() params: AiSdkChatParams,
    @Query() query: AiSdkChatOwnerQuery,
  ): Promise<void> {
    return this.stopChat.execute(caller, params.id, query.user_id);
  }

  private sse(caller: Caller, stream: ChatReplyStream, reply: FastifyReply): StreamableFile {
    void reply.headers(UI_MESSAGE_STREAM_HEADERS);
    return jsonlBody(
      uiMessageSse(stream.lines, this.waits.waitingCallsOf(caller, stream.replyId)),
      reply.raw,
      this.limits,
      'text/event-stream',
    );
  }
}
