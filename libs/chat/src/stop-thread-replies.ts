import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '@app/contracts';
import {
  AgentRepository,
  Db,
  MessageRepository,
  Scope,
  ThreadEntity,
  ThreadRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { RunCancellation, RunCancellationRequest } from '@app/run-events';
import { cancelPendingReplies, closeCancelledStreams } from './chat.rules';

/** Which replies `StopThreadReplies.stop` stops: those of the thread, or with `messageId` that reply alone. */
interface StopThreadRepliesRequest extends RunCancellationRequest {
  /** Whose thread it must be: else 404 with `notFound`. */
  scope: Scope;
  notFound: string;
  /** A further test of the locked thread (an end-user token's agents, say): else 404 too. */
  visible?: (thread: ThreadEntity) => boolean;
  /** Done on the locked thread before its replies are closed, in the same transaction (archiving it, say). */
  alongside?: (tx: Db, thread: ThreadEntity) => Promise<void>;
}

/**
 * Stops a thread's live replies (archiving a thread) or one of them (a protocol's cancel), the one way: in one
 * transaction the thread is locked and the replies no run holds (never started, or waiting for an approval) are
 * closed as cancelled; after the commit, a running one is its worker's to end, told through RunCancellation, and
 * a worker closes the streams of the replies closed here.
 */
@Injectable()
export class StopThreadReplies {
  constructor(
    private readonly db: DataSource,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentRepository,
    private readonly cancellation: RunCancellation,
    private readonly agentRuns: AgentRunQueue,
  ) {}

  /** `logger` is the use case's own, which names it in what is logged. */
  async stop(request: StopThreadRepliesRequest, logger: Logger): Promise<void> {
    const { threadId, messageId, scope, notFound, visible, alongside } = request;
    const cancelled = await this.db.transaction(async (tx) => {
      const thread = await this.threads.lockVisible(tx, scope, threadId);
      if (!thread || (visible && !visible(thread))) throw new NotFoundError(notFound);
      await alongside?.(tx, thread);
      return cancelPendingReplies(tx, scope, thread, this.messages, this.agents, messageId);
    });
    await this.cancellation.requestCancel(messageId === undefined ? { threadId } : { threadId, messageId });
    await closeCancelledStreams(this.agentRuns, logger, cancelled);
  }
}
