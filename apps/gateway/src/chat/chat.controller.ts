import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  ListThreadsQuery,
  MessageResponse,
  PostMessageDto,
  StartChatDto,
  ThreadOwnerQuery,
  ThreadResponse,
  ThreadSummaryResponse,
  UpdateThreadDto,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { SafelyRetried } from '../idempotency/safely-retried.decorator';
import { ThreadParams } from './thread.params';
import { ArchiveThread } from './use-cases/archive-thread.use-case';
import { GetThread } from './use-cases/get-thread.use-case';
import { ListThreads } from './use-cases/list-threads.use-case';
import { PostMessage } from './use-cases/post-message.use-case';
import { StartThread } from './use-cases/start-thread.use-case';
import { UpdateThread } from './use-cases/update-thread.use-case';

/** Threads and messages. The reply stream has its own controller under chat/messages. */
@ApiTags('chat')
@ApiSecurity('service-token')
@Controller('chat')
export class ChatController {
  constructor(
    private readonly startThread: StartThread,
    private readonly postMessage: PostMessage,
    private readonly listThreads: ListThreads,
    private readonly getThread: GetThread,
    private readonly updateThread: UpdateThread,
    private readonly archiveThread: ArchiveThread,
  ) {}

  @Post()
  @HttpCode(200)
  @SafelyRetried()
  start(@CurrentCaller() caller: Caller, @Body() body: StartChatDto): Promise<ThreadResponse> {
    return this.startThread.execute(caller, body);
  }

  @Post(':thread_id')
  @HttpCode(200)
  @SafelyRetried()
  post(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
    @Body() body: PostMessageDto,
  ): Promise<MessageResponse> {
    return this.postMessage.execute(caller, { threadId: params.thread_id, userId: query.user_id, body });
  }

  @Get()
  async list(
    @CurrentCaller() caller: Caller,
    @Query() query: ListThreadsQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ThreadSummaryResponse[]> {
    const page = await this.listThreads.execute(caller, query);
    // The body stays the spec's plain array; the cursor of the next page travels beside it.
    if (page.nextCursor) void reply.header('x-next-cursor', page.nextCursor);
    return page.threads;
  }

  @Get(':thread_id')
  get(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
  ): Promise<ThreadResponse> {
    return this.getThread.execute(caller, { threadId: params.thread_id, userId: query.user_id });
  }

  @Put(':thread_id')
  update(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
    @Body() body: UpdateThreadDto,
  ): Promise<ThreadSummaryResponse> {
    return this.updateThread.execute(caller, { threadId: params.thread_id, userId: query.user_id, body });
  }

  @Delete(':thread_id')
  @HttpCode(204)
  archive(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
  ): Promise<void> {
    return this.archiveThread.execute(caller, { threadId: params.thread_id, userId: query.user_id });
  }
}
