import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MultitaskStrategy } from '@app/contracts';
import { Caller } from '@app/identity';
import {
  AgentEntity,
  AgentRepository,
  Db,
  IdempotencyKeyRepository,
  IdempotentWrite,
  MessageEntity,
  MessageRepository,
  Scope,
  ThreadEntity,
  ThreadRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { RunCancellation } from '@app/run-events';
import {
  ClearedReplies,
  enqueueStoredReply,
  finishClearing,
  lockThread,
  prepareReply,
  threadScope,
} from './chat.rules';
import { ReplyAdmission } from './reply-admission';

/** What `store` of `ThreadReplies.add` stored: the pending reply, the use case's answer and what prepareReply cleared. */
interface StoredThreadReply<R> {
  reply: MessageEntity;
  response: R;
  cleared: ClearedReplies;
}

/** prepareReply for the thread `ThreadReplies.add` locked: its agent, and its live replies dealt with as `strategy` says. */
type PrepareReply = (strategy: MultitaskStrategy) => Promise<{ agent: AgentEntity; cleared: ClearedReplies }>;

/** Which thread a new reply goes to, and for whom: the input of each use case that adds one. */
interface ThreadReplyInput {
  threadId: string;
  /** `user_id` of the query string, if any. */
  userId?: string;
  body: { options?: { user_id?: string | null } | null };
}

/**
 * A new reply of an existing thread (a follow-up, a regenerate, an edit), the one way: admitted first
 * (ReplyAdmission, before anything is read), then in one transaction the thread is locked (404 unless the caller
 * may see it), `store` checks the request, has prepareReply deal with the live replies and stores the reply, and
 * its answer is recorded under the request's Idempotency-Key; after the commit, the cleared replies are stopped
 * (finishClearing) and the new one is enqueued.
 */
@Injectable()
export class ThreadReplies {
  constructor(
    private readonly db: DataSource,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentRepository,
    private readonly agentRuns: AgentRunQueue,
    private readonly cancellation: RunCancellation,
    private readonly idempotencyKeys: IdempotencyKeyRepository,
    private readonly admission: ReplyAdmission,
  ) {}

  /**
   * `store` is given `prepare`, which is prepareReply for the locked thread: called with the request's strategy,
   * once the request is checked, it answers the thread's agent and what it cleared. `logger` is the use case's
   * own, which names it in what is logged.
   */
  add<R>(
    caller: Caller,
    input: ThreadReplyInput,
    idempotency: IdempotentWrite | undefined,
    logger: Logger,
    store: (
      tx: Db,
      scope: Scope,
      thread: ThreadEntity,
      prepare: PrepareReply,
    ) => Promise<StoredThreadReply<R>>,
  ): Promise<R> {
    return this.admission.admit(async () => {
      const scope = threadScope(caller, input.userId, input.body.options?.user_id);
      const { reply, response, cleared } = await this.db.transaction(async (tx) => {
        const thread = await lockThread(tx, caller, scope, input.threadId, this.threads);
        const stored = await store(tx, scope, thread, (strategy) =>
          prepareReply(tx, caller, scope, thread, strategy, this.agents, this.messages),
        );
        if (idempotency)
          await this.idempotencyKeys.recordAnswer(tx, idempotency, stored.response, { threadId: thread.id });
        return stored;
      });
      await finishClearing(cleared, reply.threadId, this.cancellation, this.agentRuns, logger);
      await enqueueStoredReply(this.agentRuns, this.messages, logger, scope, reply, caller.requestId);
      return response;
    });
  }
}
