import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  AgentEntity,
  MessageEntity,
  Question,
  RunStepEntity,
  ThreadEntity,
  ToolCallEntity,
} from '../entities';
import { entityFromJson } from './entity-rows';
import { PreparedStatement, runPrepared } from './prepared-statement';
import { Db } from './scope';

/** How a reply ends: what its final message row holds. */
export interface ReplyOutcome {
  status: 'success' | 'error' | 'cancelled';
  content: string;
  errorCode: 'budget_exhausted' | null;
  questions: Question[] | null;
  structuredOutput: Record<string, unknown> | null;
  events: Record<string, unknown>[];
  deltaLengths: number[];
}

/** What a run checks before each step: its thread archived (DELETE /chat/{id}), its token budget spent. */
export interface RunGate {
  archived: boolean;
  budgetSpent: boolean;
}

/** Whose gate: the reply's thread and agent (its organization's budget too), the tokens the reply spent so far. */
export interface GateQuery {
  threadId: string;
  agentId: string;
  /** Not yet in the counters: a reply's tokens are added when it ends. */
  replyTokens: number;
}

interface GateRow {
  saved: number;
  archived: boolean;
  spent: boolean;
}

/** The gate as select-list items, on parameters $1 thread and $2 agent, and `tokens` the reply's tokens. */
const gateSql = (tokens: string): string => `
  COALESCE((SELECT archived_at IS NOT NULL FROM threads WHERE id = $1), true) AS archived,
  EXISTS (SELECT 1 FROM agents WHERE id = $2 AND token_budget IS NOT NULL AND tokens_used + ${tokens} >= token_budget)
  OR EXISTS (SELECT 1 FROM organizations WHERE id = (SELECT org_id FROM agents WHERE id = $2)
             AND token_budget IS NOT NULL AND tokens_used + ${tokens} >= token_budget) AS spent`;

/** The gate of a step, with $3 the tokens the reply spent so far. */
const GATE_SQL = gateSql('$3');

const gateParams = (query: GateQuery, extraTokens: number): unknown[] => [
  query.threadId,
  query.agentId,
  query.replyTokens + extraTokens,
];

const toGate = (row: GateRow): RunGate => ({ archived: row.archived, budgetSpent: row.spent });

/*
 * The statements a run makes at every step or reply, prepared (see runPrepared). Each name must stay unique to
 * its text: a connection keeps the first text it prepared under a name.
 */
/**
 * A reply's start, in its thread's order: it waits while an earlier reply of the thread is live (unless the
 * thread is archived: then it only closes), else it becomes running (PostgreSQL runs the UPDATE whether or
 * not the SELECT reads it).
 */
const START_RUN: PreparedStatement = {
  name: 'run_start',
  text: `WITH blocked AS (
     SELECT NOT $3::boolean AND EXISTS (SELECT 1 FROM messages WHERE thread_id = $1 AND live AND position < $2) AS blocked),
   marked AS (
     UPDATE messages SET status = 'running', updated_at = now()
     WHERE id = $4 AND live AND NOT (SELECT blocked FROM blocked) RETURNING id)
   SELECT blocked FROM blocked`,
};

const NEXT_LIVE_REPLY: PreparedStatement = {
  name: 'run_next_live_reply',
  text: `SELECT id FROM messages WHERE thread_id = $1 AND live AND role = 'assistant' ORDER BY position LIMIT 1`,
};

/** A reply with its thread and agent (null when gone). */
const LOAD_RUN: PreparedStatement = {
  name: 'run_load',
  text: `SELECT to_jsonb(m) AS reply, to_jsonb(t) AS thread, to_jsonb(a) AS agent
         FROM messages m LEFT JOIN threads t ON t.id = m.thread_id LEFT JOIN agents a ON a.id = m.agent_id
         WHERE m.id = $1`,
};

/**
 * What a run starts from, in one round trip: the thread's messages before the reply, the reply's stored steps
 * and tool results, and the gate of its next step ($1 thread, $2 agent, $3 reply, $4 its position).
 */
const RUN_CONTEXT: PreparedStatement = {
  name: 'run_context',
  text: `SELECT
     (SELECT COALESCE(jsonb_agg(to_jsonb(m) ORDER BY m.position), '[]') FROM messages m
      WHERE m.thread_id = $1 AND m.position < $4) AS history,
     (SELECT COALESCE(jsonb_agg(to_jsonb(s) ORDER BY s.step), '[]') FROM run_steps s WHERE s.message_id = $3) AS steps,
     (SELECT COALESCE(jsonb_agg(to_jsonb(c) ORDER BY c.step, c.call_id), '[]') FROM tool_calls c
      WHERE c.message_id = $3) AS tool_results,
     ${gateSql('(SELECT COALESCE(SUM(usage_tokens), 0) FROM run_steps WHERE message_id = $3)')}`,
};

const SAVE_STEP: PreparedStatement = {
  name: 'run_save_step',
  text: `WITH saved AS (
     INSERT INTO run_steps
       (message_id, step, text, tool_calls, questions, structured_output, usage_tokens, content_length, started_at)
     VALUES ($4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (message_id, step) DO NOTHING RETURNING 1)
   SELECT (SELECT count(*) FROM saved)::int AS saved, ${GATE_SQL}`,
};

const SAVE_TOOL_RESULT: PreparedStatement = {
  name: 'run_save_tool_result',
  text: `WITH saved AS (
     INSERT INTO tool_calls (idempotency_key, message_id, step, call_id, name, arguments, output, is_error, duration_ms)
     VALUES ($4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1)
   SELECT (SELECT count(*) FROM saved)::int AS saved, ${GATE_SQL}`,
};

const FINISH_REPLY: PreparedStatement = {
  name: 'run_finish_reply',
  text: `WITH usage AS (SELECT COALESCE(SUM(usage_tokens), 0)::int AS tokens FROM run_steps WHERE message_id = $1),
   done AS (
     UPDATE messages SET status = $2, live = false, content = $3, error_code = $4, questions = $5,
       structured_output = $6, events = $7, delta_lengths = $8, usage_tokens = usage.tokens, completed_at = now(),
       updated_at = now()
     FROM usage WHERE id = $1 AND live RETURNING thread_id, agent_id, org_id, usage_tokens),
   agent AS (UPDATE agents SET tokens_used = tokens_used + done.usage_tokens FROM done WHERE id = done.agent_id),
   org AS (UPDATE organizations SET tokens_used = tokens_used + done.usage_tokens FROM done WHERE id = done.org_id)
   SELECT (SELECT id FROM messages WHERE thread_id = done.thread_id AND live AND role = 'assistant' AND id <> $1
           ORDER BY position LIMIT 1) AS next_reply_id
   FROM done`,
};

/** What a run starts from (RunRepository.context). */
export interface RunContext {
  history: MessageEntity[];
  steps: RunStepEntity[];
  toolResults: ToolCallEntity[];
  gate: RunGate;
}

type JsonRow = Record<string, unknown>;

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

  /**
   * Starts a reply's run in its thread's order: `blocked` while an earlier reply of the thread is pending or
   * running (never on an archived thread, whose replies only close); else pending → running (a reply no
   * longer live is left as it is).
   */
  async start(
    reply: { id: string; threadId: string; position: number },
    threadArchived: boolean,
  ): Promise<'blocked' | 'started'> {
    const [row] = await runPrepared<{ blocked: boolean }>(this.db, START_RUN, [
      reply.threadId,
      reply.position,
      threadArchived,
      reply.id,
    ]);
    return row.blocked ? 'blocked' : 'started';
  }

  /** Whether an earlier reply of the reply's thread is still pending or running, from the reply's id alone. */
  async isBlocked(messageId: string, db: Db = this.db.manager): Promise<boolean> {
    const rows: { blocked: boolean }[] = await db.query(
      `SELECT EXISTS (
         SELECT 1 FROM messages r JOIN messages e ON e.thread_id = r.thread_id AND e.live AND e.position < r.position
         WHERE r.id = $1) AS blocked`,
      [messageId],
    );
    return rows[0].blocked;
  }

  /** The id of the thread's earliest live reply: the one to run next. */
  async nextLiveReply(threadId: string): Promise<string | null> {
    const [row] = await runPrepared<{ id: string }>(this.db, NEXT_LIVE_REPLY, [threadId]);
    return row?.id ?? null;
  }

  /** A reply with its thread and agent, for its run; null when there is no such message. */
  async load(
    messageId: string,
  ): Promise<{ reply: MessageEntity; thread: ThreadEntity | null; agent: AgentEntity | null } | null> {
    const [row] = await runPrepared<{
      reply: JsonRow;
      thread: JsonRow | null;
      agent: JsonRow | null;
    }>(this.db, LOAD_RUN, [messageId]);
    if (!row) return null;
    return {
      reply: entityFromJson(this.db, MessageEntity, row.reply),
      thread: row.thread && entityFromJson(this.db, ThreadEntity, row.thread),
      agent: row.agent && entityFromJson(this.db, AgentEntity, row.agent),
    };
  }

  /**
   * What a reply's run starts from: the thread's messages before it (never later ones), oldest first; its
   * stored steps and tool results (a resumed run replays them); the gate of its next step.
   */
  async context(reply: MessageEntity, agentId: string): Promise<RunContext> {
    const [row] = await runPrepared<
      { history: JsonRow[]; steps: JsonRow[]; tool_results: JsonRow[] } & GateRow
    >(this.db, RUN_CONTEXT, [reply.threadId, agentId, reply.id, reply.position]);
    return {
      history: row.history.map((json) => entityFromJson(this.db, MessageEntity, json)),
      steps: row.steps.map((json) => entityFromJson(this.db, RunStepEntity, json)),
      toolResults: row.tool_results.map((json) => entityFromJson(this.db, ToolCallEntity, json)),
      gate: toGate(row),
    };
  }

  /**
   * Stores a step once (a second writer of the same step, a stale run, changes nothing and gets the first one
   * back) and answers, in the same round trip, the gate of the next step.
   */
  async saveStep(step: RunStepEntity, gate: GateQuery): Promise<{ step: RunStepEntity; gate: RunGate }> {
    const rows = await runPrepared<GateRow>(this.db, SAVE_STEP, [
      ...gateParams(gate, step.usageTokens),
      step.messageId,
      step.step,
      step.text,
      JSON.stringify(step.toolCalls),
      step.questions === null ? null : JSON.stringify(step.questions),
      step.structuredOutput === null ? null : JSON.stringify(step.structuredOutput),
      step.usageTokens,
      step.contentLength,
      step.startedAt,
    ]);
    const stored =
      rows[0].saved > 0
        ? step
        : await this.db
            .getRepository(RunStepEntity)
            .findOneByOrFail({ messageId: step.messageId, step: step.step });
    return { step: stored, gate: toGate(rows[0]) };
  }

  /**
   * Stores a tool result once under its idempotency key (the stored one wins over a later duplicate) and
   * answers, in the same round trip, the gate of the next step.
   */
  async saveToolResult(
    result: ToolCallEntity,
    gate: GateQuery,
  ): Promise<{ result: ToolCallEntity; gate: RunGate }> {
    const rows = await runPrepared<GateRow>(this.db, SAVE_TOOL_RESULT, [
      ...gateParams(gate, 0),
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
   * Writes the final row of a live reply and adds the tokens its steps spent to the agent's and the
   * organization's counters (tokens_used = tokens_used + n), in one statement: a reply is counted once, when it
   * stops being live. Answers, in the same round trip, the thread's next live reply (the one to run next; null
   * when none), or null when the reply was no longer live (someone else ended it).
   */
  async finish(messageId: string, outcome: ReplyOutcome): Promise<{ nextReplyId: string | null } | null> {
    const [row] = await runPrepared<{ next_reply_id: string | null }>(this.db, FINISH_REPLY, [
      messageId,
      outcome.status,
      outcome.content,
      outcome.errorCode,
      outcome.questions === null ? null : JSON.stringify(outcome.questions),
      outcome.structuredOutput === null ? null : JSON.stringify(outcome.structuredOutput),
      JSON.stringify(outcome.events),
      outcome.deltaLengths,
    ]);
    return row ? { nextReplyId: row.next_reply_id } : null;
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
