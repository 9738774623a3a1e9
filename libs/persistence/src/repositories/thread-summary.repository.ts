import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Scope } from './scope';
import { withTenant } from './tenant-scope';
import { giveBackUserBudgetTurnSql } from '../sql/run-scheduling.sql';
import { ParkedReply, parkedReplyOf } from './user-budget.repository';

/**
 * A summary a run wrote of a thread's older messages (CONTRACTS §19): it stands for every message up to
 * `throughPosition`; nothing is deleted, a run reads the latest summary and the messages after it.
 */
export interface ThreadSummary {
  id: string;
  threadId: string;
  /** The reply whose run wrote it. */
  messageId: string;
  throughPosition: number;
  summarizedMessages: number;
  summary: string;
  summaryTokens: number;
  /** What writing it cost: counted in the usage of the reply that wrote it. */
  usageTokens: number;
  createdAt: Date;
}

/** A summary to store, and what writing it cost (counted in the usage of the reply whose run wrote it). */
export interface NewThreadSummary {
  threadId: string;
  messageId: string;
  throughPosition: number;
  /** The last summarized message: the summary applies to the branches it is on. */
  throughMessageId: string;
  summarizedMessages: number;
  summary: string;
  summaryTokens: number;
  inputTokens: number;
  outputTokens: number;
}

/** A summary as `to_jsonb` gives it (RunRepository.context reads the latest with the run's context). */
export const threadSummaryFromJson = (row: Record<string, unknown>): ThreadSummary => ({
  id: row.id as string,
  threadId: row.thread_id as string,
  messageId: row.message_id as string,
  throughPosition: row.through_position as number,
  summarizedMessages: row.summarized_messages as number,
  summary: row.summary as string,
  summaryTokens: row.summary_tokens as number,
  usageTokens: ((row.input_tokens as number) ?? 0) + ((row.output_tokens as number) ?? 0),
  createdAt: new Date(row.created_at as string),
});

/**
 * The latest summary of thread `$thread` whose last summarized message is one of `branch` (a relation of the
 * messages a run sees: its branch before it), as an alias-free select-list item: the one that run reads. A
 * summary stands for its last message and every message that one follows, so it holds nothing of another
 * branch (CONTRACTS §19).
 */
export const latestSummaryOnBranchSql = (thread: string, branch: string): string =>
  `(SELECT to_jsonb(s) FROM thread_summaries s JOIN ${branch} sb ON sb.id = s.through_message_id
     WHERE s.thread_id = ${thread} ORDER BY s.through_position DESC, s.created_at DESC LIMIT 1)`;

@Injectable()
export class ThreadSummaryRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Stores a summary with what writing it cost (the reply that wrote it counts it in its usage when it ends,
   * RunRepository.finish), gives back the end user's spending turn the summary was written in (UserBudgetTurn)
   * and answers the thread's request for one: one statement. Answers the parked reply the turn went to, to be
   * woken (null when none).
   */
  // crosses tenants: the worker's compaction, on the thread of the reply it holds
  async save(summary: NewThreadSummary): Promise<ParkedReply | null> {
    const [row] = await this.db.query<{ next_reply_id: string | null; next_thread_id: string | null }[]>(
      `WITH stored AS (
         INSERT INTO thread_summaries (id, thread_id, message_id, through_position, summarized_messages, summary,
           summary_tokens, input_tokens, output_tokens, through_message_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)),
       answered AS (
         UPDATE threads SET compaction_requested_at = NULL WHERE id = $2 AND compaction_requested_at IS NOT NULL),
       turn AS (${giveBackUserBudgetTurnSql('$3::uuid')})
       SELECT (SELECT next_reply_id FROM turn) AS next_reply_id, (SELECT next_thread_id FROM turn) AS next_thread_id`,
      [
        randomUUID(),
        summary.threadId,
        summary.messageId,
        summary.throughPosition,
        summary.summarizedMessages,
        summary.summary,
        summary.summaryTokens,
        summary.inputTokens,
        summary.outputTokens,
        summary.throughMessageId,
      ],
    );
    return parkedReplyOf(row);
  }

  /** POST /chat/{id}/compact: the thread's next run writes a summary. False when the scope cannot see the thread. */
  async request(scope: Scope, threadId: string): Promise<boolean> {
    // A SELECT over the UPDATE: TypeORM answers an UPDATE's rows together with its count.
    const rows: unknown[] = await withTenant(this.db, scope, (tx) =>
      tx.query(
        `WITH requested AS (
         UPDATE threads SET compaction_requested_at = now()
          WHERE id = $1 AND org_id = $2 AND archived_at IS NULL AND ($3::text IS NULL OR user_id = $3)
          RETURNING id)
       SELECT id FROM requested`,
        [threadId, scope.orgId, scope.userId ?? null],
      ),
    );
    return rows.length > 0;
  }

  /** A requested summary with nothing to summarize (the thread is short): the request is answered. */
  // crosses tenants: the worker's compaction, on the thread of the reply it holds
  async dropRequest(threadId: string): Promise<void> {
    await this.db.query(`UPDATE threads SET compaction_requested_at = NULL WHERE id = $1`, [threadId]);
  }
}
