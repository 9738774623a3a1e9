import { Injectable } from '@nestjs/common';
import type { WebhookEvent } from '@app/contracts';
import { DataSource, In } from 'typeorm';
import { MessageEntity, newId, ThreadEntity } from '../entities';
import { entityFromJson, entityRow, EntityRow } from './entity-rows';
import { PreparedStatement, preparedStatement, runPreparedAsTenant } from './prepared-statement';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';
import { UNHELD_REPLY_CANCEL } from '../sql/reply-ending/reply-ending';

/** What the user sent (API-SPEC 2.7), as stored on the user message. */
export interface NewUserMessage {
  content: string;
  fileIds: string[];
  sourceIds: number[] | null;
  documentIds: string[] | null;
  disabledTools: string[] | null;
}

/** The assistant's reply to a user message, pending until a worker runs it. */
export interface NewPendingReply {
  agentId: string;
  maxSteps: number;
  /** The agent version the request pinned (CONTRACTS §23); absent: the latest when the run starts. */
  agentVersion?: number;
  /** A Responses API request's `metadata` (CONTRACTS §18). */
  metadata?: Record<string, string>;
}

/** A user message and the pending reply that answers it: what every POST to a thread stores. */
export interface NewExchange {
  message: NewUserMessage;
  reply: NewPendingReply;
}

/** `($from, …, $from+count-1)` */
const placeholders = (from: number, count: number): string =>
  `(${Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ')})`;

/** The insert of an exchange's two rows, its parameters numbered from `from`. */
const insertExchangeSql = (messages: EntityRow<MessageEntity>, from: number): string =>
  `INSERT INTO messages (${messages.columns.join(', ')}) VALUES ` +
  `${placeholders(from, messages.columns.length)}, ` +
  `${placeholders(from + messages.columns.length, messages.columns.length)}`;

/** Makes $2 the active leaf of thread $1, ahead of the insert of the message it names. */
const ACTIVE_LEAF_CTE = 'WITH leaf AS (UPDATE threads SET active_leaf_id = $2 WHERE id = $1)';

/**
 * The organization's live replies stored before a reply ($1 organization, $2 and $3 the reply's created_at and
 * id): its place in the organization's backlog. Asked after the reply's commit, so replies stored at the same
 * moment by other requests are counted in one order by all of them. Not folded into the insert's statement
 * (tried for issue 45): that count reads the snapshot taken as the insert starts, before the replies of a
 * concurrent burst commit, so a burst of one organization's POSTs ties at the front of the fair share (ten at
 * once counted 0,1,1,3,1,5,5,4,6,6 there, 0,1,2,3,3,5,6,5,8,9 after the commit) and another organization's
 * reply waits behind them (test/e2e/fairness.e2e-spec.ts failed so).
 */
const ORG_BACKLOG_BEFORE = preparedStatement({
  name: 'chat_org_backlog_before',
  text: `SELECT count(*)::int AS n FROM messages
         WHERE org_id = $1 AND live AND (created_at, id) < ($2::timestamptz, $3::uuid)`,
});

const VISIBLE_MESSAGE_STATE = preparedStatement({
  name: 'chat_visible_message_state',
  text: `SELECT m.id, m.live FROM messages m JOIN threads t ON t.id = m.thread_id
         WHERE m.id = $1 AND m.org_id = $2 AND t.archived_at IS NULL AND ($3::text IS NULL OR t.user_id = $3)`,
});

/**
 * The branch thread $1 of organization $2 shows (listActiveBranch): its active leaf (its last message when it has
 * none) and every message that leaf follows, as one JSON array, oldest first.
 */
const ACTIVE_BRANCH = preparedStatement({
  name: 'chat_active_branch',
  text: `WITH RECURSIVE branch AS (
           SELECT m.* FROM threads t JOIN messages m ON m.id = COALESCE(t.active_leaf_id,
             (SELECT l.id FROM messages l WHERE l.thread_id = t.id ORDER BY l.position DESC LIMIT 1))
           WHERE t.id = $1 AND t.org_id = $2
           UNION ALL
           SELECT m.* FROM messages m JOIN branch b ON m.id = b.parent_id)
         SELECT COALESCE(jsonb_agg(to_jsonb(b) ORDER BY b.position), '[]') AS messages FROM branch b`,
});

/** A message ($1) of organization $2. */
const MESSAGE_BY_ID = preparedStatement({
  name: 'chat_message_by_id',
  text: `SELECT to_jsonb(m) AS message FROM messages m WHERE m.id = $1 AND m.org_id = $2`,
});

/** A message ($2) of thread $1 of organization $3, on any branch. */
const MESSAGE_IN_THREAD = preparedStatement({
  name: 'chat_message_in_thread',
  text: `SELECT to_jsonb(m) AS message FROM messages m WHERE m.thread_id = $1 AND m.id = $2 AND m.org_id = $3`,
});

/** The live replies of thread $1 of organization $2, in order. */
const LIVE_REPLIES = preparedStatement({
  name: 'chat_live_replies',
  text: `SELECT id, status FROM messages
         WHERE thread_id = $1 AND org_id = $2 AND live AND role = 'assistant' ORDER BY position`,
});

/** The reply the user message $1 of thread $2 (organization $3) followed. */
const PREVIOUS_REPLY = preparedStatement({
  name: 'chat_previous_reply',
  text: `SELECT p.id FROM messages q JOIN messages p ON p.id = q.parent_id
         WHERE q.id = $1 AND q.thread_id = $2 AND q.org_id = $3 AND p.role = 'assistant'`,
});

/**
 * Messages of threads, in position order (0, 1, … per thread). Every method that serves a caller takes the
 * caller's scope and runs under its organization's wall; given a transaction (a locked thread's), it joins it.
 */
@Injectable()
export class MessageRepository {
  private readonly messageRow: EntityRow<MessageEntity>;
  private readonly threadRow: EntityRow<ThreadEntity>;
  /** An exchange's rows ($3…) and the thread ($1) shown at its reply ($2), in one statement. */
  private readonly insertExchangeAsLeaf: string;
  /** A reply's row ($3…) and the thread ($1) shown at it ($2), in one statement. */
  private readonly insertReplyAsLeaf: string;
  /**
   * A new thread and its first exchange in one statement: atomic on its own, so POST /chat makes one round
   * trip for its writes instead of a transaction of five.
   */
  private readonly startThreadStatement: PreparedStatement;

  constructor(private readonly db: DataSource) {
    this.messageRow = entityRow(db, MessageEntity);
    this.threadRow = entityRow(db, ThreadEntity);
    this.insertExchangeAsLeaf = `${ACTIVE_LEAF_CTE} ${insertExchangeSql(this.messageRow, 3)}`;
    this.insertReplyAsLeaf =
      `${ACTIVE_LEAF_CTE} INSERT INTO messages (${this.messageRow.columns.join(', ')}) ` +
      `VALUES ${placeholders(3, this.messageRow.columns.length)}`;
    this.startThreadStatement = preparedStatement({
      name: 'chat_start_thread',
      text:
        `WITH thread AS (INSERT INTO threads (${this.threadRow.columns.join(', ')}) ` +
        `VALUES ${placeholders(1, this.threadRow.columns.length)}) ` +
        insertExchangeSql(this.messageRow, this.threadRow.columns.length + 1),
    });
  }

  /**
   * Stores a new thread (built by ThreadRepository.build) with its first exchange, at positions 0 and 1, in one
   * statement; its reply is the thread's active leaf.
   */
  async startThread(
    scope: Scope,
    thread: ThreadEntity,
    exchange: NewExchange,
    /** A transaction to store it in, with more (an idempotent answer); else the prepared statement alone. */
    tx?: Db,
  ): Promise<{ question: MessageEntity; reply: MessageEntity }> {
    const built = this.buildExchange(thread, 0, exchange, null);
    thread.activeLeafId = built.reply.id;
    const values = [
      ...this.threadRow.values(thread),
      ...this.messageRow.values(built.question),
      ...this.messageRow.values(built.reply),
    ];
    if (tx) await withTenant(tx, scope, (scoped) => scoped.query(this.startThreadStatement.text, values));
    else await runPreparedAsTenant(this.db, scope, this.startThreadStatement, values);
    return built;
  }

  /**
   * How many live replies of its organization were stored before this committed one: its place in the
   * organization's backlog, which orders the run queue fairly (AgentRunQueue).
   */
  async orgBacklogBefore(scope: Pick<Scope, 'orgId'>, reply: MessageEntity): Promise<number> {
    const [row] = await runPreparedAsTenant<{ n: number }>(this.db, scope, ORG_BACKLOG_BEFORE, [
      scope.orgId,
      reply.createdAt,
      reply.id,
    ]);
    return row.n;
  }

  /**
   * Stores an exchange at the thread's next positions, its user message following `parentId` (when not given,
   * the thread's active leaf: a follow-up continues the branch it shows), and makes its reply the active leaf.
   * Call it with the thread row locked (ThreadRepository.lockVisible) in the same transaction, so positions
   * never clash.
   */
  async addExchange(
    tx: Db,
    scope: Scope,
    thread: ThreadEntity,
    exchange: NewExchange,
    parentId?: string | null,
  ): Promise<{ question: MessageEntity; reply: MessageEntity }> {
    return withTenant(tx, scope, async (scoped) => {
      const next = await this.nextPosition(scoped, thread.id);
      // A thread stored without an active leaf (by a process older than branches) continues its last message.
      const parent = parentId !== undefined ? parentId : (thread.activeLeafId ?? next.lastId);
      const built = this.buildExchange(thread, next.position, exchange, parent);
      await scoped.query(this.insertExchangeAsLeaf, [
        thread.id,
        built.reply.id,
        ...this.messageRow.values(built.question),
        ...this.messageRow.values(built.reply),
      ]);
      thread.activeLeafId = built.reply.id;
      return built;
    });
  }

  /**
   * Stores a new pending reply to a stored user message of the thread (a regenerated reply: the one it
   * replaces stays, on another branch) at the thread's next position, and makes it the active leaf. Call it with
   * the thread row locked, as addExchange.
   */
  async addReply(
    tx: Db,
    scope: Scope,
    thread: ThreadEntity,
    question: MessageEntity,
    reply: NewPendingReply,
  ): Promise<MessageEntity> {
    return withTenant(tx, scope, async (scoped) => {
      const { position } = await this.nextPosition(scoped, thread.id);
      const pending = this.pendingReply(thread, position, question.id, reply, new Date());
      await scoped.query(this.insertReplyAsLeaf, [thread.id, pending.id, ...this.messageRow.values(pending)]);
      thread.activeLeafId = pending.id;
      return pending;
    });
  }

  /**
   * The branch the thread shows (CONTRACTS §19): its active leaf (its last message when it has none, stored by
   * a process older than branches) and every message that leaf follows, oldest first. A thread that never
   * branched shows every message, as before branches existed.
   */
  async listActiveBranch(scope: Scope, threadId: string, db?: Db): Promise<MessageEntity[]> {
    const [row] = await this.rowsAsTenant<{ messages: Record<string, unknown>[] }>(
      scope,
      ACTIVE_BRANCH,
      [threadId, scope.orgId],
      db,
    );
    return row.messages.map((json) => entityFromJson(this.db, MessageEntity, json));
  }

  /** A message of the thread by id, on any branch; null when the thread has no such message. */
  async findInThread(scope: Scope, threadId: string, id: string, db?: Db): Promise<MessageEntity | null> {
    const [row] = await this.rowsAsTenant<{ message: Record<string, unknown> }>(
      scope,
      MESSAGE_IN_THREAD,
      [threadId, id, scope.orgId],
      db,
    );
    return row ? entityFromJson(this.db, MessageEntity, row.message) : null;
  }

  /** Whether a message of the thread is followed by another (so it is no branch's leaf). */
  async hasFollower(scope: Scope, threadId: string, id: string, db: Db = this.db.manager): Promise<boolean> {
    const [row]: { followed: boolean }[] = await withTenant(db, scope, (tx) =>
      tx.query(
        'SELECT EXISTS (SELECT 1 FROM messages WHERE thread_id = $1 AND parent_id = $2 AND org_id = $3) AS followed',
        [threadId, id, scope.orgId],
      ),
    );
    return row.followed;
  }

  /** Sets the branch the thread shows to the one ending at `leafId` (a message of the thread with no follower). */
  async setActiveLeaf(tx: Db, scope: Scope, threadId: string, leafId: string): Promise<void> {
    await withTenant(tx, scope, (scoped) =>
      scoped.query(
        'UPDATE threads SET active_leaf_id = $2, updated_at = now() WHERE id = $1 AND org_id = $3',
        [threadId, leafId, scope.orgId],
      ),
    );
  }

  /** The thread's next position, and its last message (null when none). */
  private async nextPosition(tx: Db, threadId: string): Promise<{ position: number; lastId: string | null }> {
    const [row]: { position: number | null; id: string }[] = await tx.query(
      'SELECT position, id FROM messages WHERE thread_id = $1 ORDER BY position DESC LIMIT 1',
      [threadId],
    );
    return row ? { position: row.position! + 1, lastId: row.id } : { position: 0, lastId: null };
  }

  /** Every message of a thread on every branch, oldest first. */
  listByThread(scope: Scope, threadId: string, db: Db = this.db.manager): Promise<MessageEntity[]> {
    return withTenant(db, scope, (tx) =>
      tx
        .getRepository(MessageEntity)
        .find({ where: { threadId, orgId: scope.orgId }, order: { position: 'ASC' } }),
    );
  }

  /**
   * Whether a message the scope may see is live: its thread is of the organization, of the end user when one is
   * named, and not archived. Null for "missing" and "not yours" alike. Prepared: every reply stream asks it.
   */
  async findVisibleState(scope: Scope, id: string): Promise<{ id: string; live: boolean } | null> {
    const [row] = await runPreparedAsTenant<{ id: string; live: boolean }>(
      this.db,
      scope,
      VISIBLE_MESSAGE_STATE,
      [id, scope.orgId, scope.userId ?? null],
    );
    return row ?? null;
  }

  /**
   * The reply before `reply` on its branch: the one its user message followed, which is what a follow-up there
   * continued (a Responses API id); null for a thread's first reply.
   */
  async previousReplyId(scope: Scope, reply: MessageEntity): Promise<string | null> {
    const [row] = await runPreparedAsTenant<{ id: string }>(this.db, scope, PREVIOUS_REPLY, [
      reply.replyToId ?? reply.parentId,
      reply.threadId,
      scope.orgId,
    ]);
    return row?.id ?? null;
  }

  /**
   * A message of the scope's organization by id, on any thread of it: what the caller then checks (its thread's
   * end user, its agent) is the caller's.
   */
  async find(scope: Scope, id: string, db?: Db): Promise<MessageEntity | null> {
    const [row] = await this.rowsAsTenant<{ message: Record<string, unknown> }>(
      scope,
      MESSAGE_BY_ID,
      [id, scope.orgId],
      db,
    );
    return row ? entityFromJson(this.db, MessageEntity, row.message) : null;
  }

  /**
   * The thread's live replies (pending or running), in order; read under the thread's lock (its transaction, `db`)
   * to decide on them.
   */
  liveReplies(
    scope: Scope,
    threadId: string,
    db?: Db,
  ): Promise<{ id: string; status: 'pending' | 'running' | 'requires_action' }[]> {
    return this.rowsAsTenant(scope, LIVE_REPLIES, [threadId, scope.orgId], db);
  }

  /**
   * The thread's replies that no run holds (pending, or waiting for an approval), or the one of them `onlyId`
   * names, in order, locked until the transaction ends: what a cancel ends (cancelUnheldReply). Running ones are
   * the worker's to stop.
   */
  lockUnheldReplies(tx: Db, scope: Scope, threadId: string, onlyId?: string): Promise<MessageEntity[]> {
    return withTenant(tx, scope, (scoped) =>
      scoped.getRepository(MessageEntity).find({
        where: {
          threadId,
          orgId: scope.orgId,
          live: true,
          status: In(['pending', 'requires_action']),
          ...(onlyId ? { id: onlyId } : {}),
        },
        order: { position: 'ASC' },
        lock: { mode: 'pessimistic_write' },
      }),
    );
  }

  /**
   * Ends a reply no run holds as cancelled, in the caller's transaction, as every reply ends (UNHELD_REPLY_CANCEL,
   * sql/reply-ending): its row kept as it stands, its usage counted, its stream journal dropped, `event` queued
   * for the organization's webhooks. Answers the closed row, or null when no run-free live reply had that id.
   */
  async cancelUnheldReply(
    tx: Db,
    scope: Scope,
    replyId: string,
    event: WebhookEvent,
  ): Promise<MessageEntity | null> {
    const [row]: { reply: Record<string, unknown> }[] = await withTenant(tx, scope, (scoped) =>
      scoped.query(
        UNHELD_REPLY_CANCEL.statement.text,
        UNHELD_REPLY_CANCEL.values({ replyId, outcome: { status: 'cancelled' }, event }),
      ),
    );
    return row ? entityFromJson(this.db, MessageEntity, row.reply) : null;
  }

  /**
   * `statement` under the wall of the scope's organization: in `db`'s transaction when one is given (joined as it
   * is when it is the scope's already, so a locked thread's costs nothing more), else alone in one round trip.
   */
  private rowsAsTenant<Row>(
    scope: Pick<Scope, 'orgId'>,
    statement: PreparedStatement,
    values: unknown[],
    db?: Db,
  ): Promise<Row[]> {
    return db
      ? withTenant(db, scope, (tx) => tx.query(statement.text, values) as Promise<Row[]>)
      : runPreparedAsTenant<Row>(this.db, scope, statement, values);
  }

  /** The rows of an exchange: the user's message at `position` following `parentId`, its pending reply after it. */
  private buildExchange(
    thread: ThreadEntity,
    position: number,
    { message, reply }: NewExchange,
    parentId: string | null,
  ): { question: MessageEntity; reply: MessageEntity } {
    const now = new Date();
    const question = this.messageOf(thread, now, {
      id: newId(),
      position,
      role: 'user',
      content: message.content,
      status: 'success',
      live: false,
      agentId: null,
      replyToId: null,
      parentId,
      fileIds: message.fileIds,
      sourceIds: message.sourceIds,
      documentIds: message.documentIds,
      disabledTools: message.disabledTools,
    });
    return { question, reply: this.pendingReply(thread, position + 1, question.id, reply, now) };
  }

  /** A pending reply at `position` answering (and following) the user message `questionId`. */
  private pendingReply(
    thread: ThreadEntity,
    position: number,
    questionId: string,
    reply: NewPendingReply,
    now: Date,
  ): MessageEntity {
    return this.messageOf(thread, now, {
      id: newId(),
      position,
      role: 'assistant',
      content: '',
      status: 'pending',
      live: true,
      agentId: reply.agentId,
      replyToId: questionId,
      parentId: questionId,
      fileIds: [],
      maxSteps: reply.maxSteps,
      agentVersion: reply.agentVersion ?? null,
      metadata: reply.metadata ?? null,
    });
  }

  /** A message row of the thread with every optional column empty, then `values`. */
  private messageOf(thread: ThreadEntity, now: Date, values: Partial<MessageEntity>): MessageEntity {
    return this.db.getRepository(MessageEntity).create({
      threadId: thread.id,
      orgId: thread.orgId,
      errorCode: null,
      questions: null,
      structuredOutput: null,
      events: null,
      sourceIds: null,
      documentIds: null,
      disabledTools: null,
      maxSteps: null,
      agentVersion: null,
      completedAt: null,
      budgetTurnParkedAt: null,
      deltaLengths: null,
      usageTokens: 0,
      inputTokens: 0,
      outputTokens: 0,
      toolCalls: 0,
      cachedInputTokens: 0,
      model: null,
      metadata: null,
      createdAt: now,
      updatedAt: now,
      ...values,
    });
  }
}
