import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { cancelPendingReplies, closeCancelledStreams } from '@app/chat';
import { AgentRepository, ErasureRepository, MessageRepository, ThreadRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { RunCancellation } from '@app/run-events';

/** How long an erasure waits for the workers to stop the replies it cancelled before trying again later. */
const RUNNING_WAIT_MS = 30_000;
const RUNNING_POLL_MS = 250;

/** Replies still run after the wait: the erasure deletes nothing under them, and its job is tried again. */
class RepliesStillRunningError extends Error {
  constructor(running: number) {
    super(`${running} replies still running: the erasure waits for them to stop`);
    this.name = 'RepliesStillRunningError';
  }
}

/**
 * Ends the live replies of threads about to be erased through the chat's own cancel path (CONTRACTS §20, §21): each
 * thread is archived (a run stops at its next check, a reply not started never starts), its pending replies and
 * those waiting for a person are cancelled by `cancelPendingReplies` (their end counted and reported,
 * `message.cancelled`, their streams closed, as any cancel), and the workers running the others are told at once.
 */
@Injectable()
export class StopReplies {
  private readonly logger = new Logger(StopReplies.name);

  constructor(
    private readonly db: DataSource,
    private readonly erasures: ErasureRepository,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentRepository,
    private readonly cancellation: RunCancellation,
    private readonly agentRuns: AgentRunQueue,
  ) {}

  async cancel(orgId: string, threadIds: string[]): Promise<void> {
    for (const threadId of threadIds) {
      const cancelled = await this.db.transaction(async (tx) => {
        const thread = await this.erasures.lockThread(tx, orgId, threadId);
        if (!thread) return [];
        await this.threads.archive(tx, { orgId }, thread.id);
        return cancelPendingReplies(tx, { orgId }, thread, this.messages, this.agents);
      });
      await this.cancellation.requestCancel({ threadId });
      await closeCancelledStreams(this.agentRuns, this.logger, cancelled);
    }
  }

  /**
   * Cancels, then waits until no reply of the threads runs: nothing is deleted under a run, so nothing it writes
   * afterwards lands next to what was erased. Throws RepliesStillRunningError when they still run after the wait.
   */
  async stop(orgId: string, threadIds: string[]): Promise<void> {
    if (threadIds.length === 0) return;
    await this.cancel(orgId, threadIds);
    const deadline = Date.now() + RUNNING_WAIT_MS;
    for (;;) {
      const running = await this.erasures.runningReplies(threadIds);
      if (running === 0) return;
      if (Date.now() >= deadline) throw new RepliesStillRunningError(running);
      await new Promise((resolve) => setTimeout(resolve, RUNNING_POLL_MS));
    }
  }
}
