import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Db } from './scope';
import { withTenant } from './tenant-scope';

/**
 * Threads of the organization ($1) whose newest message (or, with none, whose creation) is older than $2. Found by
 * the threads' age index, the newest message by its thread's position index.
 */
const STALE_THREADS = `SELECT t.id FROM threads t
       LEFT JOIN LATERAL (SELECT m.created_at FROM messages m WHERE m.thread_id = t.id
         ORDER BY m.position DESC LIMIT 1) newest ON true
       WHERE t.org_id = $1 AND t.created_at < $2 AND COALESCE(newest.created_at, t.created_at) < $2`;

/**
 * Retention (CONTRACTS §20): an organization's `thread_days`, and the old threads the daily run erases (with the
 * statements of ErasureRepository, as an end user's).
 */
@Injectable()
export class RetentionRepository {
  constructor(private readonly db: DataSource) {}

  /** The organizations with a retention setting, and the instant before which their threads go. */
  // crosses tenants: the daily retention run starts from every organization's setting
  async retentionCutoffs(): Promise<{ orgId: string; before: Date }[]> {
    const rows: { org_id: string; before: Date }[] = await this.db.query(
      `SELECT org_id, now() - make_interval(days => thread_days) AS before FROM retention_settings`,
    );
    return rows.map((row) => ({ orgId: row.org_id, before: row.before }));
  }

  /**
   * Threads of the organization whose newest message (or, with none, whose creation) is older than `before`:
   * retention's. A thread with a live reply, or one that ended at or after `settledBefore` (stopped by this
   * retention run), is left to the next run: its reply's end is reported (webhook `message.cancelled`) before the
   * thread goes.
   */
  async staleThreadIds(orgId: string, before: Date, settledBefore: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await withTenant(this.db, { orgId }, (tx) =>
      tx.query(
        `${STALE_THREADS}
         AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = t.id AND (m.live OR m.completed_at >= $3))
       LIMIT $4`,
        [orgId, before, settledBefore, limit],
      ),
    );
    return rows.map((row) => row.id);
  }

  /** Threads of the organization whose newest message is older than `before` and that still have a live reply. */
  async staleLiveThreadIds(orgId: string, before: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await withTenant(this.db, { orgId }, (tx) =>
      tx.query(
        `${STALE_THREADS}
         AND EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = t.id AND m.live)
       LIMIT $3`,
        [orgId, before, limit],
      ),
    );
    return rows.map((row) => row.id);
  }

  async retentionDays(orgId: string): Promise<number | null> {
    const rows: { thread_days: number }[] = await withTenant(this.db, { orgId }, (tx) =>
      tx.query(`SELECT thread_days FROM retention_settings WHERE org_id = $1`, [orgId]),
    );
    return rows[0]?.thread_days ?? null;
  }

  async setRetentionDays(db: Db, orgId: string, days: number | null): Promise<void> {
    await withTenant(db, { orgId }, async (tx) => {
      if (days === null) {
        await tx.query(`DELETE FROM retention_settings WHERE org_id = $1`, [orgId]);
        return;
      }
      await tx.query(
        `INSERT INTO retention_settings (org_id, thread_days) VALUES ($1, $2)
         ON CONFLICT (org_id) DO UPDATE SET thread_days = EXCLUDED.thread_days, updated_at = now()`,
        [orgId, days],
      );
    });
  }
}
