import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { MessageEntity, Question, RunStepEntity, ToolCallEntity } from '../entities';
import { Db } from './scope';

/** How a reply ends: what its final message row holds. */
export interface ReplyOutcome {
  status: 'success' | 'error' | 'cancelled';
  content: string;
  errorCode: 'budget_exhausted' | null;
  questions: Question[] | null;
  structuredOutput: Record<string, unknown> | null;
  events: Record<string, unknown>[];
  usageTokens: number;
}

/** A live reply the sweep looks at. */
export interface LiveReply {
  id: string;
  threadId: string;
  status: 'pending' | 'running';
}

/**
 * What the agent runtime reads and writes about a reply's run: its place in the thread's order, its
 * checkpoints (steps, tool results), token budgets and the final row. The worker starts from ids its own
 * service stored, so these take ids, not a Scope.
 */
@Injectable()
export class RunRepository {
  constructor(private readonly db: DataSource) {}

  /** Whether an earlier reply of the thread is still pending or running: replies run in position order. */
  async hasEarlierLiveReply(threadId: string, position: number, db: Db = this.db.manager): Promise<boolean> {
    const rows: { blocked: boolean }[] = await db.query(
      `SELECT EXISTS (SELECT 1 FROM messages WHERE thread_id = $1 AND live AND position < $2) AS blocked`,
      [threadId, position],
    );
    return rows[0].blocked;
  }

  /** Like hasEarlierLiveReply, from the reply's id alone. */
  async isBlocked(messageId: string, db: Db = this.db.manager): Promise<boolean> {
    const rows: { blocked: boolean }[] = await db.query(
      `SELECT EXISTS (
         SELECT 1 FROM messages r JOIN messages e ON e.thread_id = r.thread_id AND e.live AND e.position < r.position
         WHERE r.id = $1) AS blocked`,
      [messageId],
    );
    return rows[0].blocked;
  }

  /** The earliest live reply of the thread: the one to run next. */
  nextLiveReply(threadId: string, db: Db = this.db.manager): Promise<MessageEntity | null> {
    return db
      .getRepository(MessageEntity)
      .findOne({ where: { threadId, live: true, role: 'assistant' }, order: { position: 'ASC' } });
  }

  /** pending → running; false when the reply is no longer live (finished, cancelled). */
  async markRunning(messageId: string, db: Db = this.db.manager): Promise<boolean> {
    const rows: unknown[] = await db.query(
      `UPDATE messages SET status = 'running', updated_at = now() WHERE id = $1 AND live RETURNING id`,
      [messageId],
    );
    return rows.length > 0;
  }

  /** The thread's messages before the reply, oldest first: what its run may see (never later messages). */
  history(threadId: string, beforePosition: number, db: Db = this.db.manager): Promise<MessageEntity[]> {
    return db
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .where('m.thread_id = :threadId', { threadId })
      .andWhere('m.position < :beforePosition', { beforePosition })
      .orderBy('m.position', 'ASC')
      .getMany();
  }

  steps(messageId: string, db: Db = this.db.manager): Promise<RunStepEntity[]> {
    return db.getRepository(RunStepEntity).find({ where: { messageId }, order: { step: 'ASC' } });
  }

  /**
   * Stores a step once and adds its tokens to the agent's and the organization's counters (tokens_used =
   * tokens_used + n), in one statement and so atomically. A second writer of the same step (a stale run)
   * changes nothing and gets the first one back.
   */
  async saveStep(step: RunStepEntity, usage: { agentId: string; orgId: string }): Promise<RunStepEntity> {
    const inserted: unknown[] = await this.db.query(
      `WITH step AS (
         INSERT INTO run_steps
           (message_id, step, text, tool_calls, questions, structured_output, usage_tokens, content_length, started_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (message_id, step) DO NOTHING RETURNING usage_tokens),
       agent AS (
         UPDATE agents SET tokens_used = tokens_used + step.usage_tokens FROM step WHERE id = $10 RETURNING 1),
       org AS (
         UPDATE organizations SET tokens_used = tokens_used + step.usage_tokens FROM step WHERE id = $11 RETURNING 1)
       SELECT 1 FROM step, (SELECT count(*) FROM agent) a, (SELECT count(*) FROM org) o`,
      [
        step.messageId,
        step.step,
        step.text,
        JSON.stringify(step.toolCalls),
        step.questions === null ? null : JSON.stringify(step.questions),
        step.structuredOutput === null ? null : JSON.stringify(step.structuredOutput),
        step.usageTokens,
        step.contentLength,
        step.startedAt,
        usage.agentId,
        usage.orgId,
      ],
    );
    if (inserted.length > 0) return step;
    return this.db
      .getRepository(RunStepEntity)
      .findOneByOrFail({ messageId: step.messageId, step: step.step });
  }

  toolResults(messageId: string, db: Db = this.db.manager): Promise<ToolCallEntity[]> {
    return db.getRepository(ToolCallEntity).find({ where: { messageId }, order: { step: 'ASC' } });
  }

  /** Stores a tool result once under its idempotency key; the stored one wins over a later duplicate. */
  async saveToolResult(result: ToolCallEntity): Promise<ToolCallEntity> {
    const inserted: unknown[] = await this.db.query(
      `INSERT INTO tool_calls (idempotency_key, message_id, step, call_id, name, arguments, output, is_error, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1`,
      [
        result.idempotencyKey,
        result.messageId,
        result.step,
        result.callId,
        result.name,
        JSON.stringify(result.arguments),
        JSON.stringify(result.output ?? null),
        result.isError,
        result.durationMs,
      ],
    );
    if (inserted.length > 0) return result;
    return this.db.getRepository(ToolCallEntity).findOneByOrFail({ idempotencyKey: result.idempotencyKey });
  }

  /** Tokens the reply's steps spent so far. */
  async usageTokens(messageId: string, db: Db = this.db.manager): Promise<number> {
    const rows: { total: number }[] = await db.query(
      `SELECT COALESCE(SUM(usage_tokens), 0)::int AS total FROM run_steps WHERE message_id = $1`,
      [messageId],
    );
    return rows[0].total;
  }

  /**
   * What a run checks before each step, in one query: whether its thread was archived (DELETE /chat/{id}) and
   * whether the agent's or the organization's token budget is spent.
   */
  async beforeStep(
    threadId: string,
    agentId: string,
    orgId: string,
  ): Promise<{ archived: boolean; budgetSpent: boolean }> {
    const rows: { archived: boolean; spent: boolean }[] = await this.db.query(
      `SELECT
         COALESCE((SELECT archived_at IS NOT NULL FROM threads WHERE id = $1), true) AS archived,
         EXISTS (SELECT 1 FROM agents WHERE id = $2 AND token_budget IS NOT NULL AND tokens_used >= token_budget)
         OR EXISTS (SELECT 1 FROM organizations WHERE id = $3 AND token_budget IS NOT NULL AND tokens_used >= token_budget)
         AS spent`,
      [threadId, agentId, orgId],
    );
    return { archived: rows[0].archived, budgetSpent: rows[0].spent };
  }

  /** Writes the final row of a live reply; null when it was no longer live (someone else ended it). */
  async finish(
    messageId: string,
    outcome: ReplyOutcome,
    db: Db = this.db.manager,
  ): Promise<MessageEntity | null> {
    const result = await db
      .createQueryBuilder()
      .update(MessageEntity)
      .set({
        status: outcome.status,
        live: false,
        content: outcome.content,
        errorCode: outcome.errorCode,
        questions: outcome.questions,
        structuredOutput: outcome.structuredOutput,
        events: outcome.events,
        usageTokens: outcome.usageTokens,
        completedAt: () => 'now()',
        updatedAt: () => 'now()',
      } as QueryDeepPartialEntity<MessageEntity>)
      .where('id = :messageId AND live', { messageId })
      .execute();
    if (!result.affected) return null;
    return db.getRepository(MessageEntity).findOneBy({ id: messageId });
  }

  /** Live replies not touched for `olderThanMs`: candidates for the sweep of forgotten replies. */
  async staleLiveReplies(olderThanMs: number, limit = 500, db: Db = this.db.manager): Promise<LiveReply[]> {
    const rows: { id: string; thread_id: string; status: 'pending' | 'running' }[] = await db.query(
      `SELECT id, thread_id, status FROM messages
       WHERE live AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
       ORDER BY updated_at LIMIT $2`,
      [olderThanMs, limit],
    );
    return rows.map((row) => ({ id: row.id, threadId: row.thread_id, status: row.status }));
  }
}
