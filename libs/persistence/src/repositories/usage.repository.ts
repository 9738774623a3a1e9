import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { newId } from '../entities';
import { Db } from './scope';
import { withTenant } from './tenant-scope';

/** What GET /usage may group by (CONTRACTS §20). */
type UsageGrouping = 'user' | 'agent' | 'day' | 'model';

/** Which replies GET /usage sums: UTC days `from` to `to` (YYYY-MM-DD, both included), optionally one user or agent. */
interface UsageFilter {
  orgId: string;
  from: string;
  to: string;
  userId?: string;
  agentId?: string;
  groupBy?: UsageGrouping;
}

/** The sums of one group's replies of one model: a cost is priced per model before groups add up. */
export interface UsageSums {
  /** The value of the grouping's key (user id, agent id, YYYY-MM-DD day or model); null without a grouping. */
  key: string | null;
  model: string | null;
  replies: number;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
  /** The part of inputTokens read from the vendors' prompt caches. */
  cachedInputTokens: number;
}

/**
 * Tokens a model spent for an organization outside a reply's steps (a rubric's judge): counted under its agent, end
 * user and model as a reply's are, without counting a reply.
 */
interface ModelCallSpend {
  orgId: string;
  agentId: string;
  userId: string;
  /** As an agent names its model (`openai:<model>`, `builtin`): what MODEL_PRICES prices. */
  model: string;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/** The column each grouping reads, as usage_daily stores it. */
const GROUP_COLUMN: Record<UsageGrouping, string> = {
  user: 'user_id',
  agent: 'agent_id::text',
  day: `to_char(day, 'YYYY-MM-DD')`,
  model: 'model',
};

/**
 * Reads usage from `usage_daily`, the rows every reply's ending adds to (the trigger parley_count_ended_reply): a
 * month of an organization is at most 8 rows (shards) per day, user, agent and model, however many replies it had.
 * Model calls outside replies are counted by the same function the trigger calls (parley_count_usage).
 */
@Injectable()
export class UsageRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Counts a model call's tokens in usage, the end user's budget and the agent's and organization's counters, in
   * the caller's transaction (so they count exactly when what the call decided is stored).
   */
  async recordModelCall(spend: ModelCallSpend, db: Db = this.db.manager): Promise<void> {
    await withTenant(db, spend, (tx) =>
      tx.query(
        `SELECT parley_count_usage($1, $2, (now() AT TIME ZONE 'UTC')::date, $3, $4, $5, 0, $6, $7, 0, $8)`,
        [
          newId(),
          spend.orgId,
          spend.userId,
          spend.agentId,
          spend.model,
          spend.inputTokens,
          spend.outputTokens,
          spend.cachedInputTokens,
        ],
      ),
    );
  }

  /** The filter's sums by its grouping's key and model, ordered by key. */
  async sums(filter: UsageFilter): Promise<UsageSums[]> {
    const key = filter.groupBy ? GROUP_COLUMN[filter.groupBy] : 'NULL::text';
    const rows: {
      key: string | null;
      model: string | null;
      replies: string;
      input_tokens: string;
      output_tokens: string;
      tool_calls: string;
      cached_input_tokens: string;
    }[] = await withTenant(this.db, filter, (tx) =>
      tx.query(
        `SELECT ${key} AS key, model, sum(replies) AS replies, sum(input_tokens) AS input_tokens,
         sum(output_tokens) AS output_tokens, sum(tool_calls) AS tool_calls,
         sum(cached_input_tokens) AS cached_input_tokens
       FROM usage_daily
       WHERE org_id = $1 AND day BETWEEN $2::date AND $3::date
         AND ($4::text IS NULL OR user_id = $4) AND ($5::uuid IS NULL OR agent_id = $5)
       GROUP BY 1, 2 ORDER BY 1 NULLS LAST, 2 NULLS LAST`,
        [filter.orgId, filter.from, filter.to, filter.userId ?? null, filter.agentId ?? null],
      ),
    );
    return rows.map((row) => ({
      key: row.key,
      model: row.model,
      replies: Number(row.replies),
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      toolCalls: Number(row.tool_calls),
      cachedInputTokens: Number(row.cached_input_tokens),
    }));
  }
}
