import { Logger } from '@nestjs/common';
import { ConflictError, MultitaskStrategy, NotFoundError } from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import {
  AgentRepository,
  Db,
  MessageEntity,
  MessageRepository,
  Scope,
  ThreadEntity,
  ThreadRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { RunCancellation } from '@app/run-events';
import { cancelPendingReplies, closeCancelledStreams, THREAD_NOT_FOUND } from './chat.rules';
import { THREAD_HAS_LIVE_REPLY } from './post-message.use-case';

/** What clearing a thread's live replies left to do after the commit. */
export interface ClearedReplies {
  /** Closed here (pending, or waiting for a person): their streams still need their last lines. */
  cancelled: MessageEntity[];
  /** The running reply, which only its worker can end. */
  interrupted: { id: string } | null;
}

/** The thread, locked until the transaction ends, if the caller may see it; else 404. */
export async function lockThread(
  tx: Db,
  caller: Caller,
  scope: Scope,
  threadId: string,
  threads: ThreadRepository,
): Promise<ThreadEntity> {
  const thread = await threads.lockVisible(tx, scope, threadId);
  // An end-user token limited to some agents sees no thread of another.
  if (!thread || !mayUseAgent(caller, thread.agentId)) throw new NotFoundError(THREAD_NOT_FOUND);
  return thread;
}

/**
 * Regenerate and edit change what the thread's next reply answers, so they never queue behind a live reply
 * (CONTRACTS §19): 409 while one is live, unless `interrupt`, which cancels every live reply as a follow-up's
 * interrupt does (§12). Call it with the thread locked.
 */
export async function clearLiveReplies(
  tx: Db,
  thread: ThreadEntity,
  strategy: MultitaskStrategy | null | undefined,
  messages: MessageRepository,
  agents: AgentRepository,
): Promise<ClearedReplies> {
  const live = await messages.liveReplies(tx, thread.id);
  if (live.length === 0) return { cancelled: [], interrupted: null };
  if (strategy !== 'interrupt') throw new ConflictError(THREAD_HAS_LIVE_REPLY);
  const cancelled = await cancelPendingReplies(tx, thread, messages, agents);
  return { cancelled, interrupted: live.find((reply) => reply.status === 'running') ?? null };
}

/**
 * After the commit: the running reply is told to stop before the new one is enqueued (the request names the old
 * reply, so it can never stop the new one), and the cancelled replies' streams are closed.
 */
export async function finishClearing(
  cleared: ClearedReplies,
  threadId: string,
  cancellation: RunCancellation,
  queue: AgentRunQueue,
  logger: Logger,
): Promise<void> {
  if (cleared.interrupted) {
    await cancellation.requestCancel({ threadId, messageId: cleared.interrupted.id });
  }
  await closeCancelledStreams(queue, logger, cleared.cancelled);
}
