import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { cancelPendingReplies, closeCancelledStreams } from '@app/chat';
import { AgentRepository, MessageRepository, ThreadRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { RunCancellation } from '@app/run-events';
import { VisibleReply } from './visible-replies';

/**
 * Stops one live reply, as an interrupting follow-up does (CONTRACTS §12): a pending one (or one waiting for an
 * approval) is closed here, a running one is its worker's to end, told after the commit. A protocol's cancel
 * (Responses, A2A) then reads the reply's end from its stream.
 */
@Injectable()
export class CancelReply {
  private readonly logger = new Logger(CancelReply.name);

  constructor(
    private readonly db: DataSource,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentRepository,
    private readonly cancellation: RunCancellation,
    private readonly agentRuns: AgentRunQueue,
  ) {}

  /** `notFound`: the protocol's detail should the thread be gone meanwhile. */
  async execute(caller: Caller, { reply, thread }: VisibleReply, notFound: string): Promise<void> {
    if (!reply.live) return;
    const cancelled = await this.db.transaction(async (tx) => {
      const locked = await this.threads.lockVisible(tx, { orgId: caller.orgId }, thread.id);
      if (!locked) throw new NotFoundError(notFound);
      return cancelPendingReplies(tx, locked, this.messages, this.agents, reply.id);
    });
    await this.cancellation.requestCancel({ threadId: thread.id, messageId: reply.id });
    await closeCancelledStreams(this.agentRuns, this.logger, cancelled);
  }
}
