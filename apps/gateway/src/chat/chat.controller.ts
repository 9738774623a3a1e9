import { Body, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import {
  ListThreadsQuery,
  MessageResponse,
  Page,
  PostMessageDto,
  StartChatDto,
  ThreadOwnerQuery,
  ThreadResponse,
  ThreadSummaryResponse,
  UpdateThreadDto,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { IdempotentWrite } from '@app/persistence';
import { StartsReply } from '../admission/admission.guard';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../auth/end-user-token-allowed.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { PagedListing } from '../http/paged-listing';
import { IdempotentWriteOf } from '../idempotency/idempotency.interceptor';
import { KEY_IN_USE_409, SafelyRetried } from '../idempotency/safely-retried.decorator';
import { DeleteOneRoute, ReadOneRoute } from '../routes/resource-routes';
import { ThreadParams, threadOf } from './thread.params';
import {
  ArchiveThread,
  CompactThread,
  GetThread,
  ListThreads,
  PostMessage,
  StartThread,
  UpdateThread,
} from '@app/chat';

/** Threads and messages. The reply stream has its own controller under chat/messages. */
@ServiceApiController('chat', 'chat')
export class ChatController {
  constructor(
    private readonly startThread: StartThread,
    private readonly postMessage: PostMessage,
    private readonly listThreads: ListThreads,
    private readonly getThread: GetThread,
    private readonly updateThread: UpdateThread,
    private readonly archiveThread: ArchiveThread,
    private readonly compactThread: CompactThread,
  ) {}

  @EndUserTokenAllowed()
  @Post()
  @HttpCode(200)
  @SafelyRetried()
  @StartsReply()
  @ApiOperation({
    summary: 'Start a thread and post its first message',
    description:
      "Stores the thread and the user's message, creates the assistant's reply with status pending and live " +
      'true, queues the agent run and answers at once, without waiting for the model. Stream the reply with ' +
      'GET /chat/messages/{message_id}/stream, message_id being the id of the last message.',
  })
  @ApiBody({
    type: StartChatDto,
    examples: {
      minimal: {
        summary: 'A first message',
        value: {
          message: { content: 'What changed in the handbook this week?' },
          options: { agent_id: '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11', user_id: 'user-42' },
        },
      },
      full: {
        summary: 'Named, with memory, limits and files',
        value: {
          name: 'Handbook changes',
          project_id: null,
          message: {
            content: 'Summarize the attached file.',
            source_ids: [3],
            document_ids: null,
            disabled_tools: ['web'],
            file_ids: ['0193a3c6-0a8e-7d21-8f44-6b1c2d3e4f50'],
          },
          options: {
            agent_id: '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11',
            user_id: 'user-42',
            max_steps: 10,
            memory_namespace: 'support-team',
          },
        },
      },
    },
  })
  @ApiOkResponse({ type: ThreadResponse, description: 'The thread with both messages, oldest first.' })
  @ApiErrors([400, 404, 409, 413], {
    404: 'Agent not found: not an agent of the organization, or archived.',
    409: KEY_IN_USE_409,
  })
  start(
    @CurrentCaller() caller: Caller,
    @Body() body: StartChatDto,
    @IdempotentWriteOf() idempotency?: IdempotentWrite,
  ): Promise<ThreadResponse> {
    return this.startThread.execute(caller, body, { idempotency });
  }

  @EndUserTokenAllowed()
  @Post(':thread_id')
  @HttpCode(200)
  @SafelyRetried()
  @StartsReply()
  @ApiOperation({
    summary: 'Post a follow-up message',
    description:
      "Answers the assistant's reply message (pending), whose id is what one streams. A follow-up sent while " +
      'a reply is live waits behind it (options.multitask_strategy: enqueue), is refused (reject) or cancels ' +
      'it (interrupt).',
  })
  @ApiOkResponse({ type: MessageResponse, description: "The assistant's reply, pending." })
  @ApiErrors([400, 404, 409, 413], {
    409: 'Thread has a live reply (multitask_strategy reject), or the Idempotency-Key is in use.',
  })
  post(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
    @Body() body: PostMessageDto,
    @IdempotentWriteOf() idempotency?: IdempotentWrite,
  ): Promise<MessageResponse> {
    return this.postMessage.execute(caller, { ...threadOf(params, query), body }, idempotency);
  }

  @EndUserTokenAllowed()
  @Get()
  @ApiOperation({
    summary: "List an end user's threads",
    description:
      'Newest first; archived threads are left out. A full page carries an `x-next-cursor` header: pass it as ' +
      '`before` for the next page (our extension; the body stays a plain array).',
  })
  @PagedListing(ThreadSummaryResponse)
  list(
    @CurrentCaller() caller: Caller,
    @Query() query: ListThreadsQuery,
  ): Promise<Page<ThreadSummaryResponse>> {
    return this.listThreads.execute(caller, query);
  }

  @EndUserTokenAllowed()
  @ReadOneRoute(':thread_id', { summary: 'Get a thread with its full history' }, ThreadResponse)
  get(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
  ): Promise<ThreadResponse> {
    return this.getThread.execute(caller, threadOf(params, query));
  }

  @EndUserTokenAllowed()
  @Put(':thread_id')
  @ApiOperation({ summary: 'Rename, star or unstar a thread' })
  @ApiOkResponse({ type: ThreadSummaryResponse, description: 'The thread summary, without messages.' })
  @ApiErrors([400, 404, 413])
  update(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
    @Body() body: UpdateThreadDto,
  ): Promise<ThreadSummaryResponse> {
    return this.updateThread.execute(caller, { ...threadOf(params, query), body });
  }

  @EndUserTokenAllowed()
  @DeleteOneRoute(
    ':thread_id',
    {
      summary: 'Archive a thread',
      description: 'Cancels its live reply; afterwards the thread is 404 to every call.',
    },
    'Archived.',
  )
  archive(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
  ): Promise<void> {
    return this.archiveThread.execute(caller, threadOf(params, query));
  }

  @Post(':thread_id/compact')
  @HttpCode(204)
  @ApiOperation({
    summary: "Summarize a thread's older messages",
    description:
      "The thread's next run first summarizes all but its recent messages with the agent's model, whatever " +
      'their size (CONTRACTS §19); nothing is deleted. Without this, a run does so once the history passes ' +
      "the agent's compaction threshold.",
  })
  @ApiNoContentResponse({ description: 'Requested: the next run writes the summary.' })
  @ApiErrors([404])
  compact(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
  ): Promise<void> {
    return this.compactThread.execute(caller, threadOf(params, query));
  }
}
