import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { newId } from '../entities';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';

type OrgScope = Pick<Scope, 'orgId'>;

/** An item of a dataset: a HumanMessage, what its answer is scored on, and a recorded answer when there is one. */
export interface EvalItem {
  input: Record<string, unknown>;
  expected: Record<string, string> | null;
  reference: string | null;
  /** Copied from an end user's thread: endUserHash of that user, so an erasure finds the copy. */
  sourceUserHash?: string;
}

export interface EvalDataset {
  id: string;
  name: string;
  itemCount: number;
  createdAt: Date;
}

/** One score of an item: whether it passed, and why when the scorer says. */
export interface EvalScore {
  passed: boolean;
  reason?: string;
}

export interface EvalRunItem extends EvalItem {
  position: number;
  threadId: string | null;
  replyId: string | null;
  output: string | null;
  scores: Record<string, EvalScore> | null;
  passed: boolean | null;
  /** What answering and scoring the item spent: its reply's tokens and its rubric judge's. */
  inputTokens: number;
  outputTokens: number;
}

interface EvalRunSummary {
  items: number;
  passed: number;
  inputTokens: number;
  outputTokens: number;
}

export interface EvalRun {
  id: string;
  orgId: string;
  datasetId: string;
  agentId: string;
  agentVersion: number;
  judgeModel: string | null;
  status: 'running' | 'done';
  createdAt: Date;
  completedAt: Date | null;
  summary: EvalRunSummary;
}

/** What advancing a running run reads of it: fixed when the run is created. */
export type RunningEvalRun = Pick<EvalRun, 'id' | 'orgId' | 'agentId' | 'agentVersion' | 'judgeModel'>;

/** An item claimed into `judging` once its reply ended: what its scorers read, and the claim its score needs. */
export interface JudgingEvalItem extends EvalRunItem {
  /** Names this claim: the score is stored only while the item is still judging by it. */
  claim: string;
  replyStatus: string;
  replyContent: string;
  /** Names of the tools the reply called, in order. */
  toolsCalled: string[];
  replyInputTokens: number;
  replyOutputTokens: number;
}

interface RunRow {
  id: string;
  org_id: string;
  dataset_id: string;
  agent_id: string;
  agent_version: number;
  judge_model: string | null;
  status: 'running' | 'done';
  created_at: Date;
  completed_at: Date | null;
  items: number;
  passed: number;
  input_tokens: number;
  output_tokens: number;
}

interface RunItemRow {
  position: number;
  input: Record<string, unknown>;
  expected: Record<string, string> | null;
  reference: string | null;
  thread_id: string | null;
  reply_id: string | null;
  output: string | null;
  scores: Record<string, EvalScore> | null;
  passed: boolean | null;
  input_tokens: number;
  output_tokens: number;
}

/** A run with its summary: sums over its items, so always exact. */
const SELECT_RUN = `SELECT r.*,
    (SELECT count(*)::int FROM eval_run_items i WHERE i.run_id = r.id) AS items,
    (SELECT count(*)::int FROM eval_run_items i WHERE i.run_id = r.id AND i.passed) AS passed,
    (SELECT COALESCE(sum(i.input_tokens), 0)::int FROM eval_run_items i WHERE i.run_id = r.id) AS input_tokens,
    (SELECT COALESCE(sum(i.output_tokens), 0)::int FROM eval_run_items i WHERE i.run_id = r.id) AS output_tokens
  FROM eval_runs r`;

const toRun = (row: RunRow): EvalRun => ({
  id: row.id,
  orgId: row.org_id,
  datasetId: row.dataset_id,
  agentId: row.agent_id,
  agentVersion: row.agent_version,
  judgeModel: row.judge_model,
  status: row.status,
  createdAt: row.created_at,
  completedAt: row.completed_at,
  summary: {
    items: row.items,
    passed: row.passed,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
  },
});

const toRunItem = (row: RunItemRow): EvalRunItem => ({
  position: row.position,
  input: row.input,
  expected: row.expected,
  reference: row.reference,
  threadId: row.thread_id,
  replyId: row.reply_id,
  output: row.output,
  scores: row.scores,
  passed: row.passed,
  inputTokens: row.input_tokens,
  outputTokens: row.output_tokens,
});

/**
 * Datasets and runs of evaluations (CONTRACTS §23). The gateway reads and writes them for one organization; the
 * workers advance running runs across organizations (as the table owner, like every run and sweep).
 */
@Injectable()
export class EvalRepository {
  constructor(private readonly db: DataSource) {}

  async createDataset(scope: OrgScope, name: string, items: EvalItem[]): Promise<EvalDataset> {
    const id = newId();
    return withTenant(this.db, scope, async (tx) => {
      const [row]: { created_at: Date }[] = await tx.query(
        `INSERT INTO eval_datasets (id, org_id, name) VALUES ($1, $2, $3) RETURNING created_at`,
        [id, scope.orgId, name],
      );
      await tx.query(
        `INSERT INTO eval_items (dataset_id, position, org_id, input, expected, reference, source_user_hash)
         SELECT $1, i.ordinality - 1, $2, i.value -> 'input', i.value -> 'expected', i.value ->> 'reference',
                i.value ->> 'sourceUserHash'
         FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY i`,
        [id, scope.orgId, JSON.stringify(items)],
      );
      return { id, name, itemCount: items.length, createdAt: row.created_at };
    });
  }

  /**
   * Of each thread of the organization (by id), its first user message and the reply that answered it; threads
   * that do not exist, or have no ended reply to their first message, are left out.
   */
  async firstExchanges(
    scope: OrgScope,
    threadIds: string[],
  ): Promise<Map<string, { input: Record<string, unknown>; reply: string; userId: string | null }>> {
    return withTenant(this.db, scope, async (tx) => {
      const rows: {
        thread_id: string;
        user_id: string | null;
        input: Record<string, unknown>;
        reply: string;
      }[] = await tx.query(
        `SELECT t.id AS thread_id, t.user_id,
                jsonb_strip_nulls(jsonb_build_object('content', q.content, 'disabled_tools', q.disabled_tools))
                  AS input,
                a.content AS reply
         FROM threads t
         JOIN LATERAL (SELECT * FROM messages m WHERE m.thread_id = t.id AND m.role = 'user'
                       ORDER BY m.position LIMIT 1) q ON true
         JOIN LATERAL (SELECT * FROM messages m WHERE m.thread_id = t.id AND m.reply_to_id = q.id
                         AND m.role = 'assistant' AND NOT m.live
                       ORDER BY m.position LIMIT 1) a ON true
         WHERE t.org_id = $1 AND t.id = ANY($2::uuid[]) AND t.archived_at IS NULL`,
        [scope.orgId, threadIds],
      );
      return new Map(
        rows.map((row) => [row.thread_id, { input: row.input, reply: row.reply, userId: row.user_id }]),
      );
    });
  }

  async findDataset(
    scope: OrgScope,
    id: string,
  ): Promise<{ dataset: EvalDataset; items: EvalItem[] } | null> {
    return withTenant(this.db, scope, async (tx) => {
      const [dataset]: { id: string; name: string; created_at: Date }[] = await tx.query(
        `SELECT id, name, created_at FROM eval_datasets WHERE org_id = $1 AND id = $2`,
        [scope.orgId, id],
      );
      if (!dataset) return null;
      const items: EvalItem[] = await tx.query(
        `SELECT input, expected, reference FROM eval_items WHERE dataset_id = $1 ORDER BY position`,
        [id],
      );
      return {
        dataset: { id, name: dataset.name, itemCount: items.length, createdAt: dataset.created_at },
        items,
      };
    });
  }

  /** Newest first (ids are uuid v7), before `beforeId` when given. */
  listDatasets(scope: OrgScope, page: { beforeId?: string; limit: number }): Promise<EvalDataset[]> {
    return withTenant(this.db, scope, async (tx) => {
      const rows: { id: string; name: string; created_at: Date; item_count: number }[] = await tx.query(
        `SELECT d.id, d.name, d.created_at,
                (SELECT count(*)::int FROM eval_items i WHERE i.dataset_id = d.id) AS item_count
         FROM eval_datasets d
         WHERE d.org_id = $1 AND ($2::uuid IS NULL OR d.id < $2) ORDER BY d.id DESC LIMIT $3`,
        [scope.orgId, page.beforeId ?? null, page.limit],
      );
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        itemCount: row.item_count,
        createdAt: row.created_at,
      }));
    });
  }

  /** Deletes a dataset and its items; the runs made from it keep their own copies. */
  async deleteDataset(scope: OrgScope, id: string): Promise<boolean> {
    return withTenant(this.db, scope, async (tx) => {
      const [, affected]: [unknown, number] = await tx.query(
        `DELETE FROM eval_datasets WHERE org_id = $1 AND id = $2`,
        [scope.orgId, id],
      );
      return affected > 0;
    });
  }

  /** A running run with a copy of the dataset's items; null when the dataset does not exist. */
  async createRun(
    scope: OrgScope,
    run: { datasetId: string; agentId: string; agentVersion: number; judgeModel: string | null },
  ): Promise<string | null> {
    const id = newId();
    return withTenant(this.db, scope, async (tx) => {
      const found: unknown[] = await tx.query(`SELECT 1 FROM eval_datasets WHERE org_id = $1 AND id = $2`, [
        scope.orgId,
        run.datasetId,
      ]);
      if (found.length === 0) return null;
      await tx.query(
        `INSERT INTO eval_runs (id, org_id, dataset_id, agent_id, agent_version, judge_model)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [id, scope.orgId, run.datasetId, run.agentId, run.agentVersion, run.judgeModel],
      );
      await tx.query(
        `INSERT INTO eval_run_items (run_id, position, org_id, input, expected, reference, source_user_hash)
         SELECT $1, position, org_id, input, expected, reference, source_user_hash
         FROM eval_items WHERE dataset_id = $2`,
        [id, run.datasetId],
      );
      return id;
    });
  }

  async findRun(scope: OrgScope, id: string): Promise<{ run: EvalRun; items: EvalRunItem[] } | null> {
    return withTenant(this.db, scope, async (tx) => {
      const [row]: RunRow[] = await tx.query(`${SELECT_RUN} WHERE r.org_id = $1 AND r.id = $2`, [
        scope.orgId,
        id,
      ]);
      if (!row) return null;
      const items: RunItemRow[] = await tx.query(
        `SELECT * FROM eval_run_items WHERE run_id = $1 ORDER BY position`,
        [id],
      );
      return { run: toRun(row), items: items.map(toRunItem) };
    });
  }

  /** The agent's runs, newest first, before `beforeId` when given. */
  listRuns(scope: OrgScope, agentId: string, page: { beforeId?: string; limit: number }): Promise<EvalRun[]> {
    return withTenant(this.db, scope, async (tx) => {
      const rows: RunRow[] = await tx.query(
        `${SELECT_RUN} WHERE r.org_id = $1 AND r.agent_id = $2 AND ($3::uuid IS NULL OR r.id < $3)
         ORDER BY r.id DESC LIMIT $4`,
        [scope.orgId, agentId, page.beforeId ?? null, page.limit],
      );
      return rows.map(toRun);
    });
  }

  /** The runs still running, of every organization (the workers' driver). */
  // crosses tenants: the worker's eval runner advances every organization's running evaluations
  async runningRuns(): Promise<RunningEvalRun[]> {
    const rows: Pick<RunRow, 'id' | 'org_id' | 'agent_id' | 'agent_version' | 'judge_model'>[] =
      await this.db.query(
        `SELECT id, org_id, agent_id, agent_version, judge_model FROM eval_runs WHERE status = 'running'`,
      );
    return rows.map((row) => ({
      id: row.id,
      orgId: row.org_id,
      agentId: row.agent_id,
      agentVersion: row.agent_version,
      judgeModel: row.judge_model,
    }));
  }

  /**
   * Locks a running run for this transaction; false when it is done, or another worker holds it now (that
   * worker starts and closes it: no two do at once).
   */
  // crosses tenants: the worker's eval runner, by the id of a run it holds
  async lockRunning(tx: Db, id: string): Promise<boolean> {
    const rows: unknown[] = await tx.query(
      `SELECT 1 FROM eval_runs WHERE id = $1 AND status = 'running' FOR UPDATE SKIP LOCKED`,
      [id],
    );
    return rows.length > 0;
  }

  /**
   * Claims into `judging`, in this one statement, the run's items whose replies have ended, and the items whose
   * claim is older than `staleAfterMs` (their worker died judging them: taken back, so each is judged again once).
   * Two workers claiming at once claim each item once: the row's lock decides, and the loser's recheck no longer
   * matches. Each claim is a fresh id, which storing the score requires.
   */
  // crosses tenants: the worker's eval runner, by the id of a run it holds
  async claimEnded(runId: string, staleAfterMs: number): Promise<JudgingEvalItem[]> {
    // An UPDATE answers [rows, count].
    const [rows]: [
      (RunItemRow & {
        judge_claim: string;
        reply_status: string;
        reply_content: string;
        tools_called: string[];
        reply_input_tokens: number;
        reply_output_tokens: number;
      })[],
      number,
    ] = await this.db.query(
      `UPDATE eval_run_items i SET state = 'judging', judge_claim = gen_random_uuid(), judge_claimed_at = now()
       FROM messages m
       WHERE i.run_id = $1 AND m.id = i.reply_id AND NOT m.live
         AND (i.state = 'answering'
              OR (i.state = 'judging'
                  AND i.judge_claimed_at < now() - make_interval(secs => $2::double precision / 1000)))
       RETURNING i.*, m.status AS reply_status, m.content AS reply_content,
         m.input_tokens AS reply_input_tokens, m.output_tokens AS reply_output_tokens,
         COALESCE((SELECT jsonb_agg(e ->> 'name') FROM jsonb_array_elements(m.events) e
                   WHERE e ->> 'type' = 'tool.call'), '[]') AS tools_called`,
      [runId, staleAfterMs],
    );
    return rows
      .map((row) => ({
        ...toRunItem(row),
        claim: row.judge_claim,
        replyStatus: row.reply_status,
        replyContent: row.reply_content,
        toolsCalled: row.tools_called,
        replyInputTokens: row.reply_input_tokens,
        replyOutputTokens: row.reply_output_tokens,
      }))
      .sort((a, b) => a.position - b.position);
  }

  /**
   * Stores a judging item's scores and what it cost (its reply's tokens and its judge's, `judged`), only while it
   * is still judging by `item.claim`; false when that claim was taken back meanwhile (the item's later claim
   * stores its own score, once).
   */
  // crosses tenants: the worker's eval runner, by the id of a run it holds
  async saveScores(
    runId: string,
    item: JudgingEvalItem,
    scored: { scores: Record<string, EvalScore>; passed: boolean },
    judged: { inputTokens: number; outputTokens: number },
  ): Promise<boolean> {
    const [, affected]: [unknown, number] = await this.db.query(
      `UPDATE eval_run_items
       SET state = 'scored', output = $4, scores = $5, passed = $6, input_tokens = $7, output_tokens = $8
       WHERE run_id = $1 AND position = $2 AND state = 'judging' AND judge_claim = $3`,
      [
        runId,
        item.position,
        item.claim,
        item.replyContent,
        JSON.stringify(scored.scores),
        scored.passed,
        item.replyInputTokens + judged.inputTokens,
        item.replyOutputTokens + judged.outputTokens,
      ],
    );
    return affected > 0;
  }

  /** How many of the run's items are started and not scored yet (answering or judging). */
  // crosses tenants: the worker's eval runner, by the id of a run it holds
  async inFlight(tx: Db, runId: string): Promise<number> {
    const [row]: { n: number }[] = await tx.query(
      `SELECT count(*)::int AS n FROM eval_run_items WHERE run_id = $1 AND state IN ('answering', 'judging')`,
      [runId],
    );
    return row.n;
  }

  /** The run's next items not started, in order. */
  // crosses tenants: the worker's eval runner, by the id of a run it holds
  async unstarted(tx: Db, runId: string, limit: number): Promise<EvalRunItem[]> {
    const rows: RunItemRow[] = await tx.query(
      `SELECT * FROM eval_run_items WHERE run_id = $1 AND state = 'waiting' ORDER BY position LIMIT $2`,
      [runId, limit],
    );
    return rows.map(toRunItem);
  }

  /** Marks an item started with its thread and reply, in the transaction that stores them. */
  // crosses tenants: the worker's eval runner, by the id of a run it holds
  async markStarted(
    tx: Db,
    runId: string,
    position: number,
    threadId: string,
    replyId: string,
  ): Promise<void> {
    await tx.query(
      `UPDATE eval_run_items SET state = 'answering', thread_id = $3, reply_id = $4
       WHERE run_id = $1 AND position = $2`,
      [runId, position, threadId, replyId],
    );
  }

  /** Ends a run whose items are all scored. */
  // crosses tenants: the worker's eval runner, by the id of a run it holds
  async finishIfScored(tx: Db, runId: string): Promise<boolean> {
    const [, affected]: [unknown, number] = await tx.query(
      `UPDATE eval_runs SET status = 'done', completed_at = now()
       WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM eval_run_items WHERE run_id = $1 AND state <> 'scored')`,
      [runId],
    );
    return affected > 0;
  }
}
