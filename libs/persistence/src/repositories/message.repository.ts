import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { MessageEntity, newId, ThreadEntity } from '../entities';
import { Db, Scope } from './scope';

/** What the user sent (API-SPEC 2.7), as stored on the user message. */
export interface NewUserMessage {
  content: string;
  fileIds: string[];
  sourceIds: number[] | null;
  documentIds: string[] | null;
  disabledTools: string[] | null;
}

export interface NewPendingReply {
  /** The user message this reply answers; the reply takes the next position. */
  replyTo: MessageEntity;
  agentId: string;
  maxSteps: number;
}

/** Messages of threads, in position order (0, 1, … per thread). */
@Injectable()
export class MessageRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Stores the user's message at the thread's next position. Call it with the thread row locked
   * (ThreadRepository.lockVisible) or freshly created in the same transaction, so positions never clash.
   */
  async addUserMessage(tx: Db, thread: ThreadEntity, input: NewUserMessage): Promise<MessageEntity> {
    const rows: { next: number }[] = await tx.query(
      'SELECT COALESCE(MAX(position) + 1, 0)::int AS next FROM messages WHERE thread_id = $1',
      [thread.id],
    );
    return this.insert(tx, {
      threadId: thread.id,
      orgId: thread.orgId,
      position: rows[0].next,
      role: 'user',
      content: input.content,
      status: 'success',
      live: false,
      events: null,
      agentId: null,
      replyToId: null,
      fileIds: input.fileIds,
      sourceIds: input.sourceIds,
      documentIds: input.documentIds,
      disabledTools: input.disabledTools,
      maxSteps: null,
      completedAt: null,
      deltaLengths: null,
    });
  }

  /** Stores the assistant's reply, pending until a worker runs it, right after the message it answers. */
  addPendingReply(tx: Db, thread: ThreadEntity, reply: NewPendingReply): Promise<MessageEntity> {
    return this.insert(tx, {
      threadId: thread.id,
      orgId: thread.orgId,
      position: reply.replyTo.position + 1,
      role: 'assistant',
      content: '',
      status: 'pending',
      live: true,
      events: null,
      agentId: reply.agentId,
      replyToId: reply.replyTo.id,
      fileIds: [],
      sourceIds: null,
      documentIds: null,
      disabledTools: null,
      maxSteps: reply.maxSteps,
      completedAt: null,
      deltaLengths: null,
    });
  }

  /** Every message of a thread, oldest first. */
  listByThread(threadId: string, db: Db = this.db.manager): Promise<MessageEntity[]> {
    return db.getRepository(MessageEntity).find({ where: { threadId }, order: { position: 'ASC' } });
  }

  /**
   * A message the scope may see: its thread is of the organization, of the end user when one is named, and
   * not archived. Null for "missing" and "not yours" alike.
   */
  findMessage(scope: Scope, id: string, db: Db = this.db.manager): Promise<MessageEntity | null> {
    const query = db
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .innerJoin(ThreadEntity, 't', 't.id = m.thread_id')
      .where('m.id = :id', { id })
      .andWhere('m.org_id = :orgId', { orgId: scope.orgId })
      .andWhere('t.archived_at IS NULL');
    if (scope.userId != null) query.andWhere('t.user_id = :userId', { userId: scope.userId });
    return query.getOne();
  }

  /** Any message by id: for the worker, which starts from ids its own service stored. */
  findById(id: string, db: Db = this.db.manager): Promise<MessageEntity | null> {
    return db.getRepository(MessageEntity).findOneBy({ id });
  }

  findByIds(ids: string[], db: Db = this.db.manager): Promise<MessageEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db.getRepository(MessageEntity).findBy({ id: In(ids) });
  }

  /**
   * Closes the thread's replies that never started (status pending) as cancelled. Running ones are the
   * worker's to stop: it is told through RunCancellation and marks them itself.
   */
  async cancelPendingReplies(tx: Db, threadId: string): Promise<string[]> {
    const rows: { id: string }[] = await tx.query(
      `UPDATE messages SET status = 'cancelled', live = false, completed_at = now(), updated_at = now()
       WHERE thread_id = $1 AND status = 'pending' RETURNING id`,
      [threadId],
    );
    return rows.map((row) => row.id);
  }

  private async insert(
    tx: Db,
    values: Omit<
      MessageEntity,
      'id' | 'errorCode' | 'questions' | 'structuredOutput' | 'usageTokens' | 'createdAt' | 'updatedAt'
    >,
  ): Promise<MessageEntity> {
    const now = new Date();
    const message = tx.getRepository(MessageEntity).create({
      id: newId(),
      errorCode: null,
      questions: null,
      structuredOutput: null,
      usageTokens: 0,
      createdAt: now,
      updatedAt: now,
      ...values,
    });
    // TypeORM's deep-partial type cannot express free-form jsonb (events); the entity itself is complete.
    await tx.getRepository(MessageEntity).insert(message as QueryDeepPartialEntity<MessageEntity>);
    return message;
  }
}
