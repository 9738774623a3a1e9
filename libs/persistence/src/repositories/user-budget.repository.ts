import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Db } from './scope';
import { withTenant } from './tenant-scope';

export type BudgetPeriod = 'day' | 'month';

/** An end user's budget as stored, with what the user spent in the current period. */
export interface UserBudget {
  userId: string;
  period: BudgetPeriod;
  maxTokens: number;
  usedTokens: number;
  /** First UTC day of the current period, YYYY-MM-DD. */
  periodStart: string;
}

/** The first UTC day of the current period of a budget row (alias `b`). */
const PERIOD_START_SQL = (b: string) =>
  `(CASE WHEN ${b}.period = 'day' THEN (now() AT TIME ZONE 'UTC')::date
     ELSE date_trunc('month', now() AT TIME ZONE 'UTC')::date END)`;

/**
 * What the end user of a budget row (alias `b`) spent in its period: the replies that ended (usage_daily) and the
 * stored steps and thread summaries of its replies still live (running, or waiting for a person), but those of
 * thread `exceptThread` (the asking run counts its own). Every ending counts its reply in usage_daily in the
 * statement that makes it not live (parley_count_ended_reply), so a reply is in exactly one of the two sums.
 */
export const userBudgetUsedSql = (b: string, exceptThread: string) => `(
  COALESCE((SELECT sum(d.input_tokens + d.output_tokens) FROM usage_daily d
    WHERE d.org_id = ${b}.org_id AND d.user_id = ${b}.user_id AND d.day >= ${PERIOD_START_SQL(b)}), 0)
  + COALESCE((SELECT sum(s.tokens) FROM threads ut
    JOIN messages m ON m.thread_id = ut.id AND m.live
    JOIN (SELECT message_id, usage_tokens AS tokens FROM run_steps
          UNION ALL SELECT message_id, input_tokens + output_tokens FROM thread_summaries) s ON s.message_id = m.id
    WHERE ut.org_id = ${b}.org_id AND ut.user_id = ${b}.user_id AND ut.id IS DISTINCT FROM ${exceptThread}), 0))`;

/** A reply parked for its end user's spending turn and handed it by a give-back: the run to wake. */
export interface ParkedReply {
  id: string;
  threadId: string;
}

/** The parked reply a give-back (giveBackUserBudgetTurnSql) answered, from its columns; null when none. */
export const parkedReplyOf = (row: {
  next_reply_id: string | null;
  next_thread_id: string | null;
}): ParkedReply | null =>
  row.next_reply_id && row.next_thread_id ? { id: row.next_reply_id, threadId: row.next_thread_id } : null;

interface BudgetRow {
  user_id: string;
  period: BudgetPeriod;
  max_tokens: string;
  used: string;
  period_start: string;
}

const SELECT_BUDGET = `SELECT b.user_id, b.period, b.max_tokens, ${userBudgetUsedSql('b', 'NULL::uuid')} AS used,
     to_char(${PERIOD_START_SQL('b')}, 'YYYY-MM-DD') AS period_start`;

const toBudget = (row: BudgetRow): UserBudget => ({
  userId: row.user_id,
  period: row.period,
  maxTokens: Number(row.max_tokens),
  usedTokens: Number(row.used),
  periodStart: row.period_start,
});

/** Token budgets of end users (CONTRACTS §20), always of one organization, under the tenant wall. */
@Injectable()
export class UserBudgetRepository {
  constructor(private readonly db: DataSource) {}

  /** Sets (or replaces) the user's budget. */
  async put(
    orgId: string,
    userId: string,
    period: BudgetPeriod,
    maxTokens: number,
    db: Db = this.db.manager,
  ): Promise<UserBudget> {
    const [row] = await withTenant(db, { orgId }, (tx) =>
      tx.query<BudgetRow[]>(
        `WITH b AS (
         INSERT INTO user_budgets (org_id, user_id, period, max_tokens) VALUES ($1, $2, $3, $4)
         ON CONFLICT (org_id, user_id) DO UPDATE SET period = EXCLUDED.period, max_tokens = EXCLUDED.max_tokens,
           updated_at = now()
         RETURNING *)
       ${SELECT_BUDGET} FROM b`,
        [orgId, userId, period, maxTokens],
      ),
    );
    return toBudget(row);
  }

  async find(orgId: string, userId: string): Promise<UserBudget | null> {
    const [row] = await withTenant(this.db, { orgId }, (tx) =>
      tx.query<BudgetRow[]>(`${SELECT_BUDGET} FROM user_budgets b WHERE b.org_id = $1 AND b.user_id = $2`, [
        orgId,
        userId,
      ]),
    );
    return row ? toBudget(row) : null;
  }

  /** False when the user had no budget. */
  async delete(orgId: string, userId: string, db: Db = this.db.manager): Promise<boolean> {
    const rows: unknown[] = await withTenant(db, { orgId }, (tx) =>
      tx.query(
        `WITH gone AS (DELETE FROM user_budgets WHERE org_id = $1 AND user_id = $2 RETURNING 1) SELECT 1 FROM gone`,
        [orgId, userId],
      ),
    );
    return rows.length > 0;
  }
}
