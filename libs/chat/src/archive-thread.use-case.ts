import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import { AgentRepository, MessageRepository, ThreadRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { RunCancellation } from '@app/run-events';
import { cancelPendingReplies, closeCancelledStreams, THREAD_NOT_FOUND, threadScope } from './chat.rules';

interface ArchiveThreadInput {
  threadId: string;
  userId?: string;
}

/**
 * DELETE /chat/{thread_id}: archives the thread (404 to every call from now on) and stops its replies.
 * Replies that never started are closed here as cancelled; a running one belongs to its worker, which is
 * told after the commit and marks it cancelled itself.
 */
@Injectable()
export class ArchiveThread {
  private readonly logger = new Logger(ArchiveThread.name);

  constructor(
    private readonly db: DataSource,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentRepository,
    private readonly cancellation: RunCancellation,
    private readonly agentRuns: AgentRunQueue,
  ) {}

  async execute(caller: Caller, input: ArchiveThreadInput): Promise<void> {
    const scope = threadScope(caller, input.userId);
    const cancelled = await this.db.transaction(async (tx) => {
      const thread = await this.threads.lockVisible(tx, scope, input.threadId);
      if (!thread || !mayUseAgent(caller, thread.agentId)) throw new NotFoundError(THREAD_NOT_FOUND);
      await this.threads.archive(tx, thread.id);
      return cancelPendingReplies(tx, thread, this.messages, this.agents);
    });
    await this.cancellation.requestCancel({ threadId: input.threadId });
    await closeCancelledStreams(this.agentRuns, this.logger, cancelled);
  }
}
