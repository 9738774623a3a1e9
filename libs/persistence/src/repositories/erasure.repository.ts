import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor } from '@app/contracts';
import { newId, ThreadEntity } from '../entities';
import { endUserHash } from '../audit/end-user-hash';
import { Db } from './scope';
import { END_USER_MEMORY_FILES_SQL } from './memory-file.repository';
import { withTenant } from './tenant-scope';

/** What an erasure removed, by kind (`threads`, `messages`, `files`, …). */
export type ErasureCounts = Record<string, number>;

/** An erasure receipt as stored: the end user by hash; the id in clear only while it runs. */
export interface ErasureRecord {
  id: string;
  orgId: string;
  userHash: string;
  userId: string | null;
  status: 'running' | 'done';
  counts: ErasureCounts;
  /** Who asked for it: the audit log's actor of its entries, the finished erasure's too. */
  requestedBy: AuditActor;
  createdAt: Date;
  completedAt: Date | null;
}

/** An erased reply: what names it in Redis is found from its id and its approvals' deadlines. */
export interface ErasedReply {
  id: string;
  deadlines: Date[];
}

/** A stored file to remove: its bytes first, then its row. */
export interface StoredFileRef {
  id: string;
  storageKey: string;
}

interface ErasureRow {
  id: string;
  org_id: string;
  user_hash: string;
  user_id: string | null;
  status: 'running' | 'done';
  counts: ErasureCounts;
  requested_by: AuditActor;
  created_at: Date;
  completed_at: Date | null;
}

const toErasure = (row: ErasureRow): ErasureRecord => ({
  id: row.id,
  orgId: row.org_id,
  userHash: row.user_hash,
  userId: row.user_id,
  status: row.status,
  counts: Object.fromEntries(Object.entries(row.counts).map(([kind, n]) => [kind, Number(n)])),
  requestedBy: row.requested_by,
  createdAt: row.created_at,
  completedAt: row.completed_at,
});

/**
 * Erasure receipts and the statements an erasure runs (CONTRACTS §20). Each removing statement is small (a batch
 * of ids) and runs in the caller's transaction, together with `addCounts`, so a resumed erasure counts every row
 * once. Every statement is scoped to the organization.
 */
@Injectable()
export class ErasureRepository {
  constructor(private readonly db: DataSource) {}

  /** A new running erasure of the end user, or the one already running (one at a time per end user). */
  async start(
    db: Db,
    orgId: string,
    userHash: string,
    userId: string,
    requestedBy: AuditActor,
  ): Promise<ErasureRecord> {
    return withTenant(db, { orgId }, async (scoped) => {
      // Under a concurrent start the insert may find the other's row committed after this statement's snapshot:
      // the second pass sees it.
      for (let pass = 0; pass < 2; pass += 1) {
        const rows: ErasureRow[] = await scoped.query(
          `WITH created AS (
             INSERT INTO erasures (id, org_id, user_hash, user_id, status, requested_by)
             VALUES ($1, $2, $3, $4, 'running', $5)
             ON CONFLICT (org_id, user_hash) WHERE status = 'running' DO NOTHING RETURNING *)
           SELECT * FROM created
           UNION ALL SELECT * FROM erasures WHERE org_id = $2 AND user_hash = $3 AND status = 'running'
           LIMIT 1`,
          [newId(), orgId, userHash, userId, requestedBy],
        );
        if (rows[0]) return toErasure(rows[0]);
      }
      throw new Error('erasure neither created nor found');
    });
  }

  async find(orgId: string, id: string): Promise<ErasureRecord | null> {
    return withTenant(this.db, { orgId }, async (scoped) => {
      const rows: ErasureRow[] = await scoped.query(`SELECT * FROM erasures WHERE id = $1 AND org_id = $2`, [
        id,
        orgId,
      ]);
      return rows[0] ? toErasure(rows[0]) : null;
    });
  }

  // crosses tenants: the worker's erasure job names its erasure by id, whichever organization's it is
  async get(id: string): Promise<ErasureRecord | null> {
    const rows: ErasureRow[] = await this.db.query(`SELECT * FROM erasures WHERE id = $1`, [id]);
    return rows[0] ? toErasure(rows[0]) : null;
  }

  /** Erasures left running (their job lost with Redis): the worker queues them again. */
  // crosses tenants: the schedulers' reconciler resumes every organization's running erasures
  async runningIds(): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(`SELECT id FROM erasures WHERE status = 'running'`);
    return rows.map((row) => row.id);
  }

  /** Adds a batch's counts to the receipt, in the batch's transaction. */
  // crosses tenants: the worker's erasure job, by its erasure's id
  async addCounts(db: Db, id: string, counts: ErasureCounts): Promise<void> {
    const nonZero = Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
    if (Object.keys(nonZero).length === 0) return;
    await db.query(
      `UPDATE erasures e SET counts = e.counts || (
         SELECT jsonb_object_agg(key, COALESCE((e.counts ->> key)::bigint, 0) + value::bigint)
         FROM jsonb_each_text($2::jsonb))
       WHERE id = $1`,
      [id, JSON.stringify(nonZero)],
    );
  }

  /** Marks it done and forgets the id in clear; null when it was done already. */
  // crosses tenants: the worker's erasure job, by its erasure's id
  async finish(db: Db, id: string): Promise<ErasureRecord | null> {
    const rows: ErasureRow[] = await db.query(
      `WITH done AS (
         UPDATE erasures SET status = 'done', user_id = NULL, completed_at = now()
         WHERE id = $1 AND status = 'running' RETURNING *)
       SELECT * FROM done`,
      [id],
    );
    return rows[0] ? toErasure(rows[0]) : null;
  }

  // ---- threads (an end user's; retention finds its own in RetentionRepository) ----

  /** The end user's threads with a live reply (pending, running or waiting for a person). */
  async liveThreadIds(orgId: string, userId: string): Promise<string[]> {
    return withTenant(this.db, { orgId }, async (scoped) => {
      const rows: { id: string }[] = await scoped.query(
        `SELECT t.id FROM threads t
         WHERE t.org_id = $1 AND t.user_id = $2
           AND EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = t.id AND m.live)`,
        [orgId, userId],
      );
      return rows.map((row) => row.id);
    });
  }

  /** The thread, archived or not, locked until the transaction ends: its replies are about to be stopped. */
  lockThread(tx: Db, orgId: string, threadId: string): Promise<ThreadEntity | null> {
    return withTenant(tx, { orgId }, (scoped) =>
      scoped
        .getRepository(ThreadEntity)
        .findOne({ where: { id: threadId, orgId }, lock: { mode: 'pessimistic_write' } }),
    );
  }

  /** How many replies of the threads a worker is still running. */
  // crosses tenants: the worker's erasure and retention jobs wait on threads they found for one organization
  async runningReplies(threadIds: string[]): Promise<number> {
    const [row] = await this.db.query(
      `SELECT count(*)::int AS n FROM messages WHERE thread_id = ANY ($1) AND status = 'running'`,
      [threadIds],
    );
    return row.n;
  }

  userThreadIds(orgId: string, userId: string, limit: number): Promise<string[]> {
    return this.endUserRowIds('threads', orgId, userId, limit);
  }

  /** The newest messages of the threads (the last ones deleted first, so no kept message refers to a gone one). */
  // crosses tenants: the worker's erasure job, on threads it found for one organization
  async messageBatch(threadIds: string[], limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM messages WHERE thread_id = ANY ($1) ORDER BY thread_id, position DESC LIMIT $2`,
      [threadIds, limit],
    );
    return rows.map((row) => row.id);
  }

  /** The files the threads' messages hold (attached or written by an agent). */
  async threadFiles(orgId: string, threadIds: string[]): Promise<StoredFileRef[]> {
    return withTenant(this.db, { orgId }, async (scoped) => {
      const rows: { id: string; storage_key: string }[] = await scoped.query(
        `SELECT f.id, f.storage_key FROM conversation_files f JOIN messages m ON m.id = f.message_id
         WHERE f.org_id = $1 AND m.thread_id = ANY ($2)`,
        [orgId, threadIds],
      );
      return rows.map((row) => ({ id: row.id, storageKey: row.storage_key }));
    });
  }

  /**
   * The assistant replies among the messages, with every deadline an approval of theirs had: what names them in
   * Redis (their event logs, their agent-run jobs and approval-deadline jobs) is found from these.
   */
  // crosses tenants: the worker's erasure job, on messages it found for one organization
  async repliesOf(messageIds: string[]): Promise<ErasedReply[]> {
    const rows: { id: string; deadlines: Date[] }[] = await this.db.query(
      `SELECT m.id, COALESCE(array_agg(DISTINCT a.expires_at) FILTER (WHERE a.expires_at IS NOT NULL), '{}')
         AS deadlines
       FROM messages m LEFT JOIN tool_approvals a ON a.message_id = m.id
       WHERE m.id = ANY ($1) AND m.role = 'assistant' GROUP BY m.id`,
      [messageIds],
    );
    return rows.map((row) => ({ id: row.id, deadlines: row.deadlines.map((at) => new Date(at)) }));
  }

  /** Deletes messages (their steps, tool calls, approvals, journal and summaries go with them) and their feedback. */
  async deleteMessages(db: Db, orgId: string, messageIds: string[]): Promise<ErasureCounts> {
    return withTenant(db, { orgId }, async (scoped) => {
      await scoped.query(
        `UPDATE messages SET reply_to_id = NULL WHERE reply_to_id = ANY ($1) AND NOT (id = ANY ($1))`,
        [messageIds],
      );
      const feedback = await count(scoped, `DELETE FROM message_feedback WHERE message_id = ANY ($1)`, [
        messageIds,
      ]);
      const messages = await count(scoped, `DELETE FROM messages WHERE org_id = $1 AND id = ANY ($2)`, [
        orgId,
        messageIds,
      ]);
      return { messages, feedback };
    });
  }

  /**
   * Deletes threads whose messages are gone, and the records that belong to them: webhook deliveries whose
   * payload names one of them (their `thread_id` column) and idempotency records of answers about them.
   */
  async deleteThreads(db: Db, orgId: string, threadIds: string[]): Promise<ErasureCounts> {
    return withTenant(db, { orgId }, async (scoped) => {
      const deliveries = await count(
        scoped,
        `DELETE FROM webhook_deliveries d USING webhooks w
         WHERE d.thread_id = ANY ($2::text[]) AND w.id = d.webhook_id AND w.org_id = $1`,
        [orgId, threadIds],
      );
      const idempotency = await count(
        scoped,
        `DELETE FROM idempotency_keys WHERE org_id = $1 AND thread_id = ANY ($2::uuid[])`,
        [orgId, threadIds],
      );
      const threads = await count(scoped, `DELETE FROM threads WHERE org_id = $1 AND id = ANY ($2)`, [
        orgId,
        threadIds,
      ]);
      return { threads, webhook_deliveries: deliveries, idempotency_records: idempotency };
    });
  }

  // ---- files ----

  async userFiles(orgId: string, userId: string, limit: number): Promise<StoredFileRef[]> {
    return withTenant(this.db, { orgId }, async (scoped) => {
      const rows: { id: string; storage_key: string }[] = await scoped.query(
        `SELECT id, storage_key FROM conversation_files WHERE org_id = $1 AND user_id = $2 LIMIT $3`,
        [orgId, userId, limit],
      );
      return rows.map((row) => ({ id: row.id, storageKey: row.storage_key }));
    });
  }

  /** Deletes file rows (their bytes already removed) and their share links. */
  async deleteFiles(db: Db, orgId: string, fileIds: string[]): Promise<ErasureCounts> {
    return withTenant(db, { orgId }, async (scoped) => {
      const shareLinks = await count(scoped, `DELETE FROM share_links WHERE file_id = ANY ($1)`, [fileIds]);
      const files = await count(
        scoped,
        `DELETE FROM conversation_files WHERE org_id = $1 AND id = ANY ($2)`,
        [orgId, fileIds],
      );
      return { files, share_links: shareLinks };
    });
  }

  // ---- routines, sources, connections ----

  userRoutineIds(orgId: string, userId: string, limit: number): Promise<string[]> {
    return this.endUserRowIds('routines', orgId, userId, limit);
  }

  async deleteRoutines(db: Db, orgId: string, routineIds: string[]): Promise<ErasureCounts> {
    return withTenant(db, { orgId }, async (scoped) => {
      return {
        routines: await count(scoped, `DELETE FROM routines WHERE org_id = $1 AND id = ANY ($2)`, [
          orgId,
          routineIds,
        ]),
      };
    });
  }

  /** Sources the end user made, and every source of a connection the end user made (it reads with their grant). */
  async userSourceIds(orgId: string, userId: string, limit: number): Promise<number[]> {
    return withTenant(this.db, { orgId }, async (scoped) => {
      const rows: { id: number }[] = await scoped.query(
        `SELECT s.id FROM sources s WHERE s.org_id = $1 AND (s.created_by = $2 OR s.connection_id IN (
           SELECT c.id FROM connections c WHERE c.org_id = $1 AND c.created_by = $2))
         LIMIT $3`,
        [orgId, userId, limit],
      );
      return rows.map((row) => row.id);
    });
  }

  /** Deletes up to `limit` documents of a source (their passages go with them). */
  // crosses tenants: the worker's erasure job, on sources it found for one organization
  async deleteSourceDocuments(db: Db, sourceId: number, limit: number): Promise<ErasureCounts> {
    return {
      documents: await count(
        db,
        `DELETE FROM documents WHERE id IN (SELECT id FROM documents WHERE source_id = $1 LIMIT $2)`,
        [sourceId, limit],
      ),
    };
  }

  async deleteSource(db: Db, orgId: string, sourceId: number): Promise<ErasureCounts> {
    return withTenant(db, { orgId }, async (scoped) => {
      return {
        sources: await count(scoped, `DELETE FROM sources WHERE org_id = $1 AND id = $2`, [orgId, sourceId]),
      };
    });
  }

  async deleteConnections(db: Db, orgId: string, userId: string): Promise<ErasureCounts> {
    return withTenant(db, { orgId }, async (scoped) => {
      return {
        connections: await count(scoped, `DELETE FROM connections WHERE org_id = $1 AND created_by = $2`, [
          orgId,
          userId,
        ]),
      };
    });
  }

  // ---- memory (CONTRACTS §21) ----

  /**
   * Deletes up to `limit` memory files of the end user: those any of their runs wrote (`written_by_user_ids`) and every file
   * of a namespace granted in their end-user tokens (`end_user_memory_namespaces`).
   */
  async deleteMemoryFiles(db: Db, orgId: string, userId: string, limit: number): Promise<ErasureCounts> {
    return withTenant(db, { orgId }, async (scoped) => {
      return {
        memory_files: await count(
          scoped,
          `DELETE FROM memory_files WHERE id IN (
             SELECT f.id FROM memory_files f WHERE ${END_USER_MEMORY_FILES_SQL} LIMIT $3)`,
          [orgId, userId, limit],
        ),
      };
    });
  }

  /** Forgets the namespaces granted in the end user's tokens, once their files are gone. */
  async deleteMemoryNamespaces(db: Db, orgId: string, userId: string): Promise<ErasureCounts> {
    return withTenant(db, { orgId }, async (scoped) => {
      return {
        memory_namespaces: await count(
          scoped,
          `DELETE FROM end_user_memory_namespaces WHERE org_id = $1 AND user_id = $2`,
          [orgId, userId],
        ),
      };
    });
  }

  // ---- everything else that names the end user ----

  /**
   * Budget, feedback left on other threads, AI SDK chat ids, the usage rollup (its rows kept under the receipt's
   * hash of the end user, CONTRACTS §21, so the organization's sums stay exact and the id is not in clear), private templates and skills
   * (shared ones keep their content but no longer name their author), the idempotency records of the end user's
   * requests and the webhook deliveries whose payload names them (by their `user_id` and `end_user_ids` columns).
   */
  async deleteRest(db: Db, orgId: string, userId: string): Promise<ErasureCounts> {
    return withTenant(db, { orgId }, async (scoped) => {
      const params = [orgId, userId];
      const budgets = await count(
        scoped,
        `DELETE FROM user_budgets WHERE org_id = $1 AND user_id = $2`,
        params,
      );
      const feedback = await count(
        scoped,
        `DELETE FROM message_feedback WHERE org_id = $1 AND user_id = $2`,
        params,
      );
      await scoped.query(`DELETE FROM ai_sdk_chats WHERE org_id = $1 AND user_id = $2`, params);
      // A data-modifying WITH must be the statement's top level, so this one counts for itself. The rows move by
      // the one usage_daily upsert (parley_add_usage_daily), not by parley_count_usage: their tokens were counted
      // for the agent when they were spent.
      const [{ n: usage }] = await scoped.query(
        `WITH gone AS (DELETE FROM usage_daily WHERE org_id = $1 AND user_id = $2 RETURNING *)
         SELECT count(parley_add_usage_daily(org_id, day, $3, agent_id, model, shard, replies, input_tokens,
           output_tokens, tool_calls, cached_input_tokens))::int AS n FROM gone`,
        [...params, endUserHash(orgId, userId)],
      );
      const templates = await count(
        scoped,
        `DELETE FROM query_templates WHERE org_id = $1 AND created_by = $2 AND scope = 'private'`,
        params,
      );
      await scoped.query(
        `UPDATE query_templates SET created_by = '' WHERE org_id = $1 AND created_by = $2`,
        params,
      );
      await scoped.query(
        `UPDATE query_templates SET updated_by = '' WHERE org_id = $1 AND updated_by = $2`,
        params,
      );
      const skills = await count(
        scoped,
        `DELETE FROM skills WHERE org_id = $1 AND created_by = $2 AND scope = 'private'`,
        params,
      );
      await scoped.query(`UPDATE skills SET created_by = NULL WHERE org_id = $1 AND created_by = $2`, params);
      await scoped.query(`UPDATE skill_settings SET set_by = NULL WHERE org_id = $1 AND set_by = $2`, params);
      await scoped.query(`UPDATE documents SET added_by = NULL WHERE org_id = $1 AND added_by = $2`, params);
      const idempotency = await count(
        scoped,
        `DELETE FROM idempotency_keys WHERE org_id = $1 AND user_id = $2`,
        params,
      );
      // Copies of the user's messages in evaluation datasets and runs (CONTRACTS §23) are found by the user's hash.
      const hash = endUserHash(orgId, userId);
      // The threads that answered them hold the same messages (their replies cascade with them).
      const evalThreads = await count(
        scoped,
        `DELETE FROM threads WHERE org_id = $1 AND inception = 'eval' AND id IN
           (SELECT thread_id FROM eval_run_items WHERE org_id = $1 AND source_user_hash = $2)`,
        [orgId, hash],
      );
      const evalItems =
        (await count(scoped, `DELETE FROM eval_items WHERE org_id = $1 AND source_user_hash = $2`, [
          orgId,
          hash,
        ])) +
        (await count(scoped, `DELETE FROM eval_run_items WHERE org_id = $1 AND source_user_hash = $2`, [
          orgId,
          hash,
        ]));
      const deliveries = await count(
        scoped,
        `DELETE FROM webhook_deliveries d USING webhooks w
         WHERE d.end_user_ids @> ARRAY[$2::text] AND w.id = d.webhook_id AND w.org_id = $1`,
        params,
      );
      return {
        budgets,
        feedback,
        usage_rows: usage,
        templates,
        skills,
        idempotency_records: idempotency,
        webhook_deliveries: deliveries,
        eval_items: evalItems,
        eval_threads: evalThreads,
      };
    });
  }

  /** Up to `limit` ids of the end user's own rows (`user_id`) of a table. */
  private async endUserRowIds(
    table: 'threads' | 'routines',
    orgId: string,
    userId: string,
    limit: number,
  ): Promise<string[]> {
    return withTenant(this.db, { orgId }, async (scoped) => {
      const rows: { id: string }[] = await scoped.query(
        `SELECT id FROM ${table} WHERE org_id = $1 AND user_id = $2 LIMIT $3`,
        [orgId, userId, limit],
      );
      return rows.map((row) => row.id);
    });
  }
}

/** The number of rows a DELETE/UPDATE/INSERT changed (TypeORM answers such a query as `[rows, count]`). */
async function count(db: Db, sql: string, params: unknown[]): Promise<number> {
  const [row] = await db.query(
    `WITH changed AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM changed`,
    params,
  );
  return row.n;
}
