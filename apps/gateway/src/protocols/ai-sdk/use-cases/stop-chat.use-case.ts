import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import { AgentRepository, AiSdkChatRepository, MessageRepository, ThreadRepository } from '@app/persistence';
import { cancelPendingReplies, closeCancelledStreams } from '@app/chat';
import { AgentRunQueue } from '@app/queues';
import { RunCancellation } from '@app/run-events';
import { CHAT_NOT_FOUND, chatOwner, chatThreadId } from '../chat-owner';

/**
 * POST /ai-sdk/chat/{id}/stop: cancels the chat's live replies; the thread stays. Replies that never started
 * end here, as any cancel ends them (reported `message.cancelled`); the running one's worker is told after the
 * commit and ends it `cancelled`, which its stream shows.
 */
@Injectable()
export class StopChat {
  private readonly logger = new Logger(StopChat.name);

  constructor(
    private readonly db: DataSource,
    private readonly chats: AiSdkChatRepository,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentRepository,
    private readonly cancellation: RunCancellation,
    private readonly agentRuns: AgentRunQueue,
  ) {}

  async execute(caller: Caller, chatId: string, userId?: string): Promise<void> {
    const owner = chatOwner(caller, userId, ['query', 'user_id']);
    const threadId = await chatThreadId(this.chats, owner, chatId);
    const cancelled = await this.db.transaction(async (tx) => {
      const thread = await this.threads.lockVisible(tx, owner, threadId);
      if (!thread || !mayUseAgent(caller, thread.agentId)) throw new NotFoundError(CHAT_NOT_FOUND);
      return cancelPendingReplies(tx, owner, thread, this.messages, this.agents);
    });
    await this.cancellation.requestCancel({ threadId });
    await closeCancelledStreams(this.agentRuns, this.logger, cancelled);
  }
}
