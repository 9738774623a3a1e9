import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { WebhookEvent } from '@app/contracts';
import { AgentEntity, MessageEntity, RunStepEntity, ThreadEntity, ToolCallEntity } from '../entities';
import { entityFromJson } from './entity-rows';
import { preparedStatement, runPreparedAcrossTenants } from './prepared-statement';
import { Db } from './scope';
import {
  giveBackUserBudgetTurnSql,
  nextLiveReplySql,
  nextWaitingReplyOfOrgSql,
} from '../sql/run-scheduling.sql';
import { RUN_ENDING } from '../sql/reply-ending/reply-ending';
import { ReplyOutcome } from '../sql/reply-ending/reply-ending.parameters';
import { RUN_STEP_COLUMNS } from '../sql/run-step-row';
import { latestSummaryOnBranchSql, ThreadSummary, threadSummaryFromJson } from './thread-summary.repository';
import { ParkedReply, parkedReplyOf, userBudgetUsedSql } from './user-budget.repository';

/** A spending limit on tokens: what may be spent in all (null: no limit) and what is counted as spent. */
export interface TokenBudget {
  limit: number | null;
  used: number;
}

/**
 * The facts a run checks before each step: its thread archived (DELETE /chat/{id}, or gone), and the budgets it
 * spends from, its agent's and its organization's (null when the row is gone) and its end user's for the current
 * day or month (null when none). The run decides (token-budget.ts).
 */
export interface RunGate {
  archived: boolean;
  agentBudget: TokenBudget | null;
  organizationBudget: TokenBudget | null;
  userBudget: TokenBudget | null;
}

/** Whose gate: the reply's thread and agent (its organization's budget too). */
export interface GateQuery {
  threadId: string;
  agentId: string;
}

/** The gate's facts as its statements read them (bigint columns arrive as JSON numbers). */
interface GateRow {
  saved: number;
  archived: boolean;
  agent_budget: TokenBudget | null;
  org_budget: TokenBudget | null;
  user_budget: TokenBudget | null;
}

/**
 * What a counter (`table`.tokens_used, alias `row`) counts: itself and the ended replies not folded into it yet
 * (token_usage_pending, matched on `column`). Asked only of a counter with a budget: nothing reads it otherwise.
 */
const tokensUsedSql = (row: string, column: 'agent_id' | 'org_id') =>
  `CASE WHEN ${row}.token_budget IS NULL THEN ${row}.tokens_used ELSE ${row}.tokens_used + COALESCE(
     (SELECT sum(p.tokens) FROM token_usage_pending p WHERE p.${column} = ${row}.id), 0) END`;

/**
 * The gate's facts as select-list items, on parameters $1 thread and $2 agent: whether the thread is archived
 * (or gone), and the agent's, its organization's and the thread's end user's budgets.
 */
const GATE_FACTS_SQL = `
  COALESCE((SELECT archived_at IS NOT NULL FROM threads WHERE id = $1), true) AS archived,
  (SELECT jsonb_build_object('limit', a.token_budget, 'used', ${tokensUsedSql('a', 'agent_id')})
     FROM agents a WHERE a.id = $2) AS agent_budget,
  (SELECT jsonb_build_object('limit', o.token_budget, 'used', ${tokensUsedSql('o', 'org_id')})
     FROM organizations o JOIN agents a ON a.org_id = o.id WHERE a.id = $2) AS org_budget,
  (SELECT jsonb_build_object('limit', b.max_tokens, 'used', ${userBudgetUsedSql('b', '$1')})
     FROM threads t JOIN user_budgets b ON b.org_id = t.org_id AND b.user_id = t.user_id WHERE t.id = $1)
     AS user_budget`;

const gateParams = (query: GateQuery): unknown[] => [query.threadId, query.agentId];

const toGate = (row: GateRow): RunGate => ({
  archived: row.archived,
  agentBudget: row.agent_budget,
  organizationBudget: row.org_budget,
  userBudget: row.user_budget,
});

/*
 * The statements a run makes at every step or reply, prepared (see runPreparedAcrossTenants). Each name must stay unique to
 * its text: a connection keeps the first text it prepared under a name.
 */
const NEXT_WAITING_REPLY_OF_ORG = preparedStatement({
  name: 'run_next_waiting_reply_of_org',
  text: nextWaitingReplyOfOrgSql('$1'),
});

const RUN_GATE = preparedStatement({ name: 'run_gate', text: `SELECT ${GATE_FACTS_SQL}` });

const TAKE_USER_BUDGET_TURN = preparedStatement({
  name: 'run_take_user_budget_turn',
  text: `SELECT parley_take_user_budget_turn($1, $2) AS taken`,
});

const PARK_FOR_USER_BUDGET_TURN = preparedStatement({
  name: 'run_park_for_user_budget_turn',
  text: `SELECT parley_park_for_user_budget_turn($1, $2, $3, $4, $5) AS parked`,
});

const GIVE_BACK_USER_BUDGET_TURN = preparedStatement({
  name: 'run_give_back_user_budget_turn',
  text: giveBackUserBudgetTurnSql('$1::uuid'),
});

const NEXT_LIVE_REPLY = preparedStatement({ name: 'run_next_live_reply', text: nextLiveReplySql('$1') });

/**
 * A reply with its thread and agent, and the start of its run when it is a live assistant reply whose thread
 * and agent exist: parley_start_run (sql/run-scheduling.sql.ts) decides in statements of their own snapshots,
 * so the rows read here may be a moment older than the decision. The agent is configured as the version the
 * reply records, else as its latest version (CONTRACTS §23), and a start records that version on a reply that
 * pinned none (the reply read here shows it still without: the caller sets it on its copy).
 */
const LOAD_AND_START_RUN = preparedStatement({
  name: 'run_load_and_start',
  text: `SELECT to_jsonb(m) AS reply, to_jsonb(t) AS thread, to_jsonb(a) || COALESCE(v.config, '{}') AS agent,
           v.version AS agent_version,
           CASE WHEN m.role = 'assistant' AND m.live AND t.id IS NOT NULL AND a.id IS NOT NULL
             THEN parley_start_run(m.id, m.org_id, t.archived_at IS NOT NULL, $2, v.version) END AS blocked
         FROM messages m LEFT JOIN threads t ON t.id = m.thread_id LEFT JOIN agents a ON a.id = m.agent_id
           LEFT JOIN LATERAL (SELECT av.version, av.config FROM agent_versions av
             WHERE av.agent_id = a.id AND (m.agent_version IS NULL OR av.version = m.agent_version)
             ORDER BY av.version DESC LIMIT 1) v ON true
         WHERE m.id = $1`,
});

/**
 * What a run starts from, in one round trip: the messages of the reply's branch before it (its user message and
 * every message that one follows: never another branch, never a later message), the reply's stored steps and
 * tool results, its journaled lines, the latest summary made on its branch, the gate of its next step ($1
 * thread, $2 agent, $3 reply), and whether the reply's row still exists (the run's claim of its log asks it).
 */
const RUN_CONTEXT = preparedStatement({
  name: 'run_context_of_branch',
  text: `WITH RECURSIVE branch AS (
     SELECT m.* FROM messages r JOIN messages m ON m.id = r.parent_id WHERE r.id = $3
     UNION ALL
     SELECT m.* FROM messages m JOIN branch b ON m.id = b.parent_id)
   SELECT
     EXISTS (SELECT 1 FROM messages WHERE id = $3) AS stored,
     (SELECT COALESCE(jsonb_agg(to_jsonb(b) ORDER BY b.position), '[]') FROM branch b) AS history,
     (SELECT COALESCE(jsonb_agg(to_jsonb(s) ORDER BY s.step), '[]') FROM run_steps s WHERE s.message_id = $3) AS steps,
     (SELECT COALESCE(jsonb_agg(to_jsonb(c) ORDER BY c.step, c.call_id), '[]') FROM tool_calls c
      WHERE c.message_id = $3) AS tool_results,
     (SELECT COALESCE(jsonb_agg(j.lines ORDER BY j.first_seq), '[]') FROM run_stream_journal j
      WHERE j.message_id = $3) AS journal,
     ${latestSummaryOnBranchSql('$1', 'branch')} AS summary,
     ${GATE_FACTS_SQL}`,
});

/**
 * A step stored: its end user's spending turn, if the reply holds it, is given back with it (takeUserBudgetTurn),
 * and the parked reply it goes to is answered.
 */
const SAVE_STEP = preparedStatement({
  name: 'run_save_step',
  text: `WITH saved AS (
     INSERT INTO run_steps (${RUN_STEP_COLUMNS.map((column) => column.name).join(', ')})
     VALUES (${RUN_STEP_COLUMNS.map((_, index) => `$${index + 3}`).join(', ')})
     ON CONFLICT (message_id, step) DO NOTHING RETURNING 1),
   turn AS (${giveBackUserBudgetTurnSql('$3::uuid')})
   SELECT (SELECT count(*) FROM saved)::int AS saved, ${GATE_FACTS_SQL},
     (SELECT next_reply_id FROM turn) AS next_reply_id, (SELECT next_thread_id FROM turn) AS next_thread_id`,
});

/** Batches of held lines of many replies ($1 replies, $2 first seqs, $3 lines), in one statement. */
const JOURNAL_LINES = preparedStatement({
  name: 'run_journal_lines',
  text: `INSERT INTO run_stream_journal (message_id, first_seq, lines)
     SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[])
     ON CONFLICT (message_id, first_seq) DO UPDATE SET lines = EXCLUDED.lines`,
});

const SAVE_TOOL_RESULT = preparedStatement({
  name: 'run_save_tool_result',
  text: `WITH saved AS (
     INSERT INTO tool_calls (idempotency_key, message_id, step, call_id, name, arguments, output, is_error, duration_ms)
     VALUES ($3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1)
   SELECT (SELECT count(*) FROM saved)::int AS saved, ${GATE_FACTS_SQL}`,
});

/**
 * Adds the tokens of ended replies to their agents' and organizations' counters, and forgets them, in one
 * transaction; one process at a time (the others find the lock taken and move nothing).
 */
const FOLD_TOKEN_USAGE = `WITH moved AS (
     DELETE FROM token_usage_pending WHERE pg_try_advisory_xact_lock(hashtext('parley-token-usage-fold'))
     RETURNING agent_id, org_id, tokens),
   by_agent AS (UPDATE agents a SET tokens_used = a.tokens_used + s.n
     FROM (SELECT agent_id, sum(tokens) AS n FROM moved GROUP BY agent_id) s WHERE a.id = s.agent_id),
   by_org AS (UPDATE organizations o SET tokens_used = o.tokens_used + s.n
     FROM (SELECT org_id, sum(tokens) AS n FROM moved GROUP BY org_id) s WHERE o.id = s.org_id)
   SELECT count(*)::int AS n FROM moved`;

/** A reply as its run loads it, with how its start went (RunRepository.loadAndStart). */
export interface LoadedRun {
  reply: MessageEntity;
  thread: ThreadEntity | null;
  agent: AgentEntity | null;
  /** The agent version the run uses: the reply's, else the agent's latest; null for an agent without versions. */
  agentVersion: number | null;
  start: 'blocked' | 'started' | null;
}

/**
 * What ending a reply freed: its thread's next live reply, its organization's oldest waiting one, and the parked
 * reply its end user's spending turn was handed to.
 */
export interface FinishedReply {
  nextReplyId: string | null;
  nextOfOrg: { id: string; threadId: string } | null;
  nextParked: ParkedReply | null;
}

/** What a run starts from (RunRepository.context). */
export interface RunContext {
  /** Whether the reply's row exists (an erasure or retention deletes it): the rest is empty when not. */
  stored: boolean;
  history: MessageEntity[];
  steps: RunStepEntity[];
  toolResults: ToolCallEntity[];
  /** Its journaled batches of lines (JSON lines joined by newlines), oldest first. */
  journal: string[];
  /** The latest summary of messages of the reply's branch before it (CONTRACTS §19), if any. */
  summary: ThreadSummary | null;
  gate: RunGate;
}

/** A batch of a reply's lines held for PostgreSQL before they are published (RunRepository.journal). */
export interface JournalBatch {
  messageId: string;
  firstSeq: number;
  /** JSON lines joined by newlines. */
  lines: string;
}

type JsonRow = Record<string, unknown>;

/** A live reply the sweep looks at. */
export interface LiveReply {
  id: string;
  threadId: string;
  status: 'pending' | 'running' | 'requires_action';
}

/**
 * What the agent runtime reads and writes about a reply's run: its place in the thread's order, its
 * checkpoints (steps, tool results), token budgets and the final row. The worker starts from ids its own
 * service stored, so these take ids, not a Scope.
 */
@Injectable()
export class RunRepository {
  constructor(private readonly db: DataSource) {}

  /** Whether the reply's row still exists (an erasure or retention deletes it, and nothing may write for it then). */
  // crosses tenants: the worker's run, by the id of the reply it holds
  async isStored(messageId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM messages WHERE id = $1`, [messageId]);
    return rows.length > 0;
  }

  /**
   * Whether the pending reply would be blocked now, by the rule its start applies (parley_reply_blocked): an
   * earlier reply of its thread is still live, or its organization runs `orgCap` replies.
   */
  // crosses tenants: the worker's delayed replies, by the id of the reply their job names
  async isBlocked(messageId: string, orgCap: number, db: Db = this.db.manager): Promise<boolean> {
    const rows: { blocked: boolean | null }[] = await db.query(
      `SELECT parley_reply_blocked($1, false, $2) AS blocked`,
      [messageId, orgCap],
    );
    return rows[0].blocked === true;
  }

  /** The organization's oldest pending reply that is first in its thread (null when none): the next to start. */
  // crosses tenants: the worker's scheduler, with the run statements, for whichever organization's run it freed
  async nextWaitingReplyOfOrg(orgId: string): Promise<{ id: string; threadId: string } | null> {
    const [row] = await runPreparedAcrossTenants<{ id: string; thread_id: string }>(
      this.db,
      NEXT_WAITING_REPLY_OF_ORG,
      [orgId],
    );
    return row ? { id: row.id, threadId: row.thread_id } : null;
  }

  /** The id of the thread's earliest live reply: the one to run next. */
  // crosses tenants: the worker's scheduler wakes a thread's next reply, whichever organization's
  async nextLiveReply(threadId: string): Promise<string | null> {
    const [row] = await runPreparedAcrossTenants<{ id: string }>(this.db, NEXT_LIVE_REPLY, [threadId]);
    return row?.id ?? null;
  }

  /**
   * A reply with its thread and agent, for its run (null when there is no such message), and its run started in
   * the same round trip when it is a live assistant reply with both. `start`: `blocked` while an earlier reply
   * of the thread is pending or running (never on an archived thread, whose replies only close) or while the
   * organization runs `orgCap` replies; else `started` (pending → running; a reply running already, resumed
   * after a crash, stays so; either way a reply that pinned no agent version records `agentVersion` now, while
   * the `reply` answered still shows none); null when not tried. The starts of one organization take a
   * transaction-scoped advisory lock, so two workers cannot both take its last slot.
   */
  // crosses tenants: the worker starts the reply its job names, whichever organization's
  async loadAndStart(messageId: string, orgCap: number): Promise<LoadedRun | null> {
    const [row] = await runPreparedAcrossTenants<{
      reply: JsonRow;
      thread: JsonRow | null;
      agent: JsonRow | null;
      agent_version: number | null;
      blocked: boolean | null;
    }>(this.db, LOAD_AND_START_RUN, [messageId, orgCap]);
    if (!row) return null;
    return {
      reply: entityFromJson(this.db, MessageEntity, row.reply),
      thread: row.thread && entityFromJson(this.db, ThreadEntity, row.thread),
      agent: row.agent && entityFromJson(this.db, AgentEntity, row.agent),
      agentVersion: row.agent_version,
      start: row.blocked === null ? null : row.blocked ? 'blocked' : 'started',
    };
  }

  /**
   * What a reply's run starts from: the messages of its branch before it (never later ones, nor another
   * branch's), oldest first; the latest summary made on that branch; its
   * stored steps and tool results (a resumed run replays them); the gate of its next step; and whether the
   * reply is still stored, asked in the same round trip (isStored's answer, for the claim of its log).
   */
  // crosses tenants: the worker's run, by the id of the reply it holds
  async context(reply: MessageEntity, agentId: string): Promise<RunContext> {
    const [row] = await runPreparedAcrossTenants<
      {
        stored: boolean;
        history: JsonRow[];
        steps: JsonRow[];
        tool_results: JsonRow[];
        journal: string[];
        summary: JsonRow | null;
      } & GateRow
    >(this.db, RUN_CONTEXT, [reply.threadId, agentId, reply.id]);
    return {
      stored: row.stored,
      history: row.history.map((json) => entityFromJson(this.db, MessageEntity, json)),
      steps: row.steps.map((json) => entityFromJson(this.db, RunStepEntity, json)),
      toolResults: row.tool_results.map((json) => entityFromJson(this.db, ToolCallEntity, json)),
      journal: row.journal,
      summary: row.summary && threadSummaryFromJson(row.summary),
      gate: toGate(row),
    };
  }

  /** The gate of a reply's next step, read alone (after taking its end user's spending turn). */
  // crosses tenants: the worker's run (and eval judge) checks the budgets of the thread it holds
  async gate(query: GateQuery): Promise<RunGate> {
    const [row] = await runPreparedAcrossTenants<GateRow>(this.db, RUN_GATE, gateParams(query));
    return toGate(row);
  }

  /**
   * Takes the spending turn of the reply's end user for its next model step (parley_take_user_budget_turn,
   * sql/run-scheduling.sql.ts): false while another reply of the user holds it (parkForUserBudgetTurn then). The
   * turn is given back when the step is stored (saveStep) or the reply stops running. Read the gate after taking
   * it, in a statement of its own: only then does it hold what the previous holder spent.
   */
  // crosses tenants: the worker's run, by the id of the reply it holds
  async takeUserBudgetTurn(messageId: string, threadId: string): Promise<boolean> {
    const [row] = await runPreparedAcrossTenants<{ taken: boolean }>(this.db, TAKE_USER_BUDGET_TURN, [
      messageId,
      threadId,
    ]);
    return row.taken;
  }

  /**
   * Takes the turn if it was given back meanwhile, else parks the running reply (parley_park_for_user_budget_turn):
   * pending, marked, holding `streamed` as its content so far, until the turn is handed to it. `ended` when the
   * reply no longer runs.
   */
  // crosses tenants: the worker's run, by the id of the reply it holds
  async parkForUserBudgetTurn(
    messageId: string,
    threadId: string,
    streamed: { content: string; events: Record<string, unknown>[]; deltaLengths: number[] },
  ): Promise<'taken' | 'parked' | 'ended'> {
    const [row] = await runPreparedAcrossTenants<{ parked: 'taken' | 'parked' | 'ended' }>(
      this.db,
      PARK_FOR_USER_BUDGET_TURN,
      [messageId, threadId, streamed.content, JSON.stringify(streamed.events), streamed.deltaLengths],
    );
    return row.parked;
  }

  /**
   * Gives back the spending turn the reply holds, if any: when the call it was taken for stored nothing, or the
   * reply ended holding it. Answers the parked reply the turn went to, to be woken.
   */
  // crosses tenants: the worker's run, by the id of the reply it holds
  async giveBackUserBudgetTurn(messageId: string): Promise<ParkedReply | null> {
    const [row] = await runPreparedAcrossTenants<{ next_reply_id: string; next_thread_id: string }>(
      this.db,
      GIVE_BACK_USER_BUDGET_TURN,
      [messageId],
    );
    return row ? parkedReplyOf(row) : null;
  }

  /**
   * Stores batches of lines of replies' steps in progress, of any number of replies in one statement. A batch
   * tried again after a failure starts at the same seq and holds at least as much: it replaces the first. They
   * are removed when the reply ends (finish).
   */
  // crosses tenants: the worker's stream journal, for the replies its runs hold
  async journal(batches: readonly JournalBatch[]): Promise<void> {
    await runPreparedAcrossTenants(this.db, JOURNAL_LINES, [
      batches.map((batch) => batch.messageId),
      batches.map((batch) => batch.firstSeq),
      batches.map((batch) => batch.lines),
    ]);
  }

  /**
   * Stores a step once (a second writer of the same step, a stale run, changes nothing and gets the first one
   * back) and answers, in the same round trip, the gate of the next step and the parked reply the end user's
   * spending turn went to (`nextParked`, to be woken; null when none).
   */
  // crosses tenants: the worker's run, by the id of the reply it holds
  async saveStep(
    step: RunStepEntity,
    gate: GateQuery,
  ): Promise<{ step: RunStepEntity; gate: RunGate; nextParked: ParkedReply | null }> {
    const rows = await runPreparedAcrossTenants<
      GateRow & { next_reply_id: string | null; next_thread_id: string | null }
    >(this.db, SAVE_STEP, [...gateParams(gate), ...RUN_STEP_COLUMNS.map((column) => column.value(step))]);
    const stored =
      rows[0].saved > 0
        ? step
        : await this.db
            .getRepository(RunStepEntity)
            .findOneByOrFail({ messageId: step.messageId, step: step.step });
    return { step: stored, gate: toGate(rows[0]), nextParked: parkedReplyOf(rows[0]) };
  }

  /**
   * Stores a tool result once under its idempotency key (the stored one wins over a later duplicate) and
   * answers, in the same round trip, the gate of the next step.
   */
  // crosses tenants: the worker's run, by the id of the reply it holds
  async saveToolResult(
    result: ToolCallEntity,
    gate: GateQuery,
  ): Promise<{ result: ToolCallEntity; gate: RunGate }> {
    const rows = await runPreparedAcrossTenants<GateRow>(this.db, SAVE_TOOL_RESULT, [
      ...gateParams(gate),
      result.idempotencyKey,
      result.messageId,
      result.step,
      result.callId,
      result.name,
      JSON.stringify(result.arguments),
      JSON.stringify(result.output ?? null),
      result.isError,
      result.durationMs,
    ]);
    const stored =
      rows[0].saved > 0
        ? result
        : await this.db
            .getRepository(ToolCallEntity)
            .findOneByOrFail({ idempotencyKey: result.idempotencyKey });
    return { result: stored, gate: toGate(rows[0]) };
  }

  /**
   * Ends a live reply as its run does (RUN_ENDING, sql/reply-ending): writes its final row; its usage is counted
   * as it stops being live (parley_count_ended_reply), once, as every ending's. Answers, in the same round trip, the thread's next live reply (the one to run next; null
   * when none) and the organization's oldest waiting reply (the slot this run frees), or null when the reply was
   * no longer live (someone else ended it). `event` reports the end to the organization's webhooks, written by
   * the same statement. `finalStep`, the reply's last step when the run has not stored it yet, is stored by the
   * same statement too (once, like saveStep): the last step costs no commit of its own. The organization's
   * waiting reply is looked for only under a cap (`orgCap` > 0): without one, no reply waits for its organization.
   * The end user's spending turn the reply held is given back by the same statement, handed to the user's oldest
   * parked reply, answered as `nextParked` (null when none), to be woken.
   */
  // crosses tenants: the worker's run, by the id of the reply it holds
  async finish(
    messageId: string,
    outcome: ReplyOutcome,
    event: WebhookEvent,
    finalStep: RunStepEntity | null = null,
    orgCap = 0,
  ): Promise<FinishedReply | null> {
    const [row] = await runPreparedAcrossTenants<{
      next_reply_id: string | null;
      next_org_reply_id: string | null;
      next_org_thread_id: string | null;
      next_parked_reply_id: string | null;
      next_parked_thread_id: string | null;
    }>(
      this.db,
      RUN_ENDING.statement,
      RUN_ENDING.values({ replyId: messageId, outcome, event, lastStep: finalStep, orgCap }),
    );
    if (!row) return null;
    return {
      nextReplyId: row.next_reply_id,
      nextOfOrg: row.next_org_reply_id
        ? { id: row.next_org_reply_id, threadId: row.next_org_thread_id! }
        : null,
      nextParked: parkedReplyOf({
        next_reply_id: row.next_parked_reply_id,
        next_thread_id: row.next_parked_thread_id,
      }),
    };
  }

  /** Folds ended replies' tokens into the counters (FOLD_TOKEN_USAGE); answers how many replies were folded. */
  // crosses tenants: the worker's usage fold covers every organization's pending usage
  async foldTokenUsage(): Promise<number> {
    const [row] = await this.db.query<{ n: number }[]>(FOLD_TOKEN_USAGE);
    return row.n;
  }

  /**
   * Live replies not touched for `olderThanMs`: candidates for the sweep of forgotten replies. A reply waiting
   * for a person is not forgotten: it is one only once a wait of it timed out (its run then denies the call).
   */
  // crosses tenants: the worker's sweep of stale replies covers every organization
  async staleLiveReplies(olderThanMs: number, limit = 500, db: Db = this.db.manager): Promise<LiveReply[]> {
    const rows: { id: string; thread_id: string; status: LiveReply['status'] }[] = await db.query(
      `SELECT id, thread_id, status FROM messages
       WHERE live AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
         AND (status <> 'requires_action' OR EXISTS (SELECT 1 FROM tool_approvals a
           WHERE a.message_id = messages.id AND a.decision IS NULL AND a.expires_at <= now()))
       ORDER BY updated_at LIMIT $2`,
      [olderThanMs, limit],
    );
    return rows.map((row) => ({ id: row.id, threadId: row.thread_id, status: row.status }));
  }
}
