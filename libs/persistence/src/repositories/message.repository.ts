import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { MessageEntity, newId, ThreadEntity } from '../entities';
import { entityRow, EntityRow } from './entity-rows';
import { PreparedStatement, preparedStatement, runPrepared } from './prepared-statement';
import { Db, Scope } from './scope';

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

/**
 * The organization's live replies stored before a reply ($1 organization, $2 and $3 the reply's created_at and
 * id): its place in the organization's backlog. Asked after the reply's commit, so replies stored at the same
 * moment by other requests are counted in one order by all of them.
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

/** Messages of threads, in position order (0, 1, … per thread). */
@Injectable()
export class MessageRepository {
  private readonly messageRow: EntityRow<MessageEntity>;
  private readonly threadRow: EntityRow<ThreadEntity>;
  private readonly insertExchange: string;
  /**
   * A new thread and its first exchange in one statement: atomic on its own, so POST /chat makes one round
   * trip for its writes instead of a transaction of five.
   */
  private readonly startThreadStatement: PreparedStatement;

  constructor(private readonly db: DataSource) {
    this.messageRow = entityRow(db, MessageEntity);
    this.threadRow = entityRow(db, ThreadEntity);
    this.insertExchange = insertExchangeSql(this.messageRow, 1);
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
   * statement.
   */
  async startThread(
    thread: ThreadEntity,
    exchange: NewExchange,
    /** A transaction to store it in, with more (an idempotent answer); else the prepared statement alone. */
    tx?: Db,
  ): Promise<{ question: MessageEntity; reply: MessageEntity }> {
    const built = this.buildExchange(thread, 0, exchange);
    const values = [
      ...this.threadRow.values(thread),
      ...this.messageRow.values(built.question),
      ...this.messageRow.values(built.reply),
    ];
    if (tx) await tx.query(this.startThreadStatement.text, values);
    else await runPrepared(this.db, this.startThreadStatement, values);
    return built;
  }

  /**
   * How many live replies of its organization were stored before this committed one: its place in the
   * organization's backlog, which orders the run queue fairly (AgentRunQueue).
   */
  async orgBacklogBefore(reply: MessageEntity): Promise<number> {
    const [row] = await runPrepared<{ n: number }>(this.db, ORG_BACKLOG_BEFORE, [
      reply.orgId,
      reply.createdAt,
      reply.id,
    ]);
    return row.n;
  }

  /**
   * Stores an exchange at the thread's next positions. Call it with the thread row locked
   * (ThreadRepository.lockVisible) in the same transaction, so positions never clash.
   */
  async addExchange(
    tx: Db,
    thread: ThreadEntity,
    exchange: NewExchange,
  ): Promise<{ question: MessageEntity; reply: MessageEntity }> {
    const rows: { next: number }[] = await tx.query(
      'SELECT COALESCE(MAX(position) + 1, 0)::int AS next FROM messages WHERE thread_id = $1',
      [thread.id],
    );
    const built = this.buildExchange(thread, rows[0].next, exchange);
    await tx.query(this.insertExchange, [
      ...this.messageRow.values(built.question),
      ...this.messageRow.values(built.reply),
    ]);
    return built;
  }

  /** Every message of a thread, oldest first. */
  listByThread(threadId: string, db: Db = this.db.manager): Promise<MessageEntity[]> {
    return db.getRepository(MessageEntity).find({ where: { threadId }, order: { position: 'ASC' } });
  }

  /**
   * Whether a message the scope may see is live: its thread is of the organization, of the end user when one is
   * named, and not archived. Null for "missing" and "not yours" alike. Prepared: every reply stream asks it.
   */
  async findVisibleState(scope: Scope, id: string): Promise<{ id: string; live: boolean } | null> {
    const [row] = await runPrepared<{ id: string; live: boolean }>(this.db, VISIBLE_MESSAGE_STATE, [
      id,
      scope.orgId,
      scope.userId ?? null,
    ]);
    return row ?? null;
  }

  /** The id of the thread's last reply before `position`: what a follow-up there continued (a Responses API id). */
  async previousReplyId(scope: Scope, threadId: string, position: number): Promise<string | null> {
    const [row]: { id: string }[] = await this.db.query(
      `SELECT id FROM messages WHERE org_id = $1 AND thread_id = $2 AND role = 'assistant' AND position < $3
       ORDER BY position DESC LIMIT 1`,
      [scope.orgId, threadId, position],
    );
    return row?.id ?? null;
  }

  /** Any message by id: for the worker, which starts from ids its own service stored. */
  findById(id: string, db: Db = this.db.manager): Promise<MessageEntity | null> {
    return db.getRepository(MessageEntity).findOneBy({ id });
  }

  /** The thread's live replies (pending or running), in order; read under the thread's lock to decide on them. */
  async liveReplies(
    tx: Db,
    threadId: string,
  ): Promise<{ id: string; status: 'pending' | 'running' | 'requires_action' }[]> {
    return tx.query(
      `SELECT id, status FROM messages WHERE thread_id = $1 AND live AND role = 'assistant' ORDER BY position`,
      [threadId],
    );
  }

  /**
   * Closes the thread's replies that no run holds (pending, or waiting for an approval) as cancelled, and
   * answers them as stored. Running ones are the worker's to stop. With `onlyId`, that reply alone (a Responses
   * cancel).
   */
  async cancelPendingReplies(tx: Db, threadId: string, onlyId?: string): Promise<MessageEntity[]> {
    const [rows]: [{ id: string }[], number] = await tx.query(
      `UPDATE messages SET status = 'cancelled', live = false, completed_at = now(), updated_at = now()
       WHERE thread_id = $1 AND live AND status IN ('pending', 'requires_action') AND ($2::uuid IS NULL OR id = $2)
       RETURNING id`,
      [threadId, onlyId ?? null],
    );
    if (rows.length === 0) return [];
    return tx.getRepository(MessageEntity).findBy({ id: In(rows.map((row) => row.id)) });
  }

  /** The rows of an exchange: the user's message at `position`, its pending reply right after it. */
  private buildExchange(
    thread: ThreadEntity,
    position: number,
    { message, reply }: NewExchange,
  ): { question: MessageEntity; reply: MessageEntity } {
    const now = new Date();
    const row = (values: Partial<MessageEntity>): MessageEntity =>
      this.db.getRepository(MessageEntity).create({
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
        completedAt: null,
        deltaLengths: null,
        usageTokens: 0,
        inputTokens: 0,
        outputTokens: 0,
        toolCalls: 0,
        model: null,
        metadata: null,
        createdAt: now,
        updatedAt: now,
        ...values,
      });
    const question = row({
      id: newId(),
      position,
      role: 'user',
      content: message.content,
      status: 'success',
      live: false,
      agentId: null,
      replyToId: null,
      fileIds: message.fileIds,
      sourceIds: message.sourceIds,
      documentIds: message.documentIds,
      disabledTools: message.disabledTools,
    });
    const pending = row({
      id: newId(),
      position: position + 1,
      role: 'assistant',
      content: '',
      status: 'pending',
      live: true,
      agentId: reply.agentId,
      replyToId: question.id,
      fileIds: [],
      maxSteps: reply.maxSteps,
      metadata: reply.metadata ?? null,
    });
    return { question, reply: pending };
  }
}
