import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource, In, SelectQueryBuilder } from 'typeorm';
import { WebhookEvent } from '@app/contracts';
import { SourceEntity, SourceStatus, SourceSyncState } from '../entities';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';
import { whereVisible } from './visibility';
import { recordWebhookEvent } from './webhook.repository';

/** The webhook event that reports a sync's end, made from the source as it ended (`source.synced`/`failed`). */
type SyncEndReport = (source: SourceEntity) => WebhookEvent;

type NewSource = Pick<
  SourceEntity,
  'connectionId' | 'name' | 'scope' | 'createdBy' | 'store' | 'config' | 'language'
>;
type SourceChanges = Partial<Pick<SourceEntity, 'name' | 'connectionId' | 'config' | 'language'>>;

/** A public id: `src_` and 20 random base-36 characters. */
const newPid = () =>
  `src_${BigInt(`0x${randomBytes(13).toString('hex')}`)
    .toString(36)
    .padStart(20, '0')}`;

/**
 * Sources. One is visible to a caller when it is of the caller's organization and either organization-wide
 * or private to the caller's end user (CONTRACTS §9); "missing" and "not visible" are the same null.
 */
@Injectable()
export class SourceRepository {
  constructor(private readonly db: DataSource) {}

  async create(scope: Scope, values: NewSource, db: Db = this.db.manager): Promise<SourceEntity> {
    return withTenant(db, scope, (tx) => {
      const repository = tx.getRepository(SourceEntity);
      return repository.save(
        repository.create({ pid: newPid(), orgId: scope.orgId, status: 'pending', ...values }),
      );
    });
  }

  /** Archived ones included: GET shows their archived_at. */
  findVisible(scope: Scope, pid: string): Promise<SourceEntity | null> {
    return withTenant(this.db, scope, (tx) =>
      this.visible(scope, tx).andWhere('s.pid = :pid', { pid }).getOne(),
    );
  }

  findLiveVisible(scope: Scope, pid: string): Promise<SourceEntity | null> {
    return withTenant(this.db, scope, (tx) =>
      this.visible(scope, tx).andWhere('s.pid = :pid', { pid }).andWhere('s.archived_at IS NULL').getOne(),
    );
  }

  /** Newest first, archived ones left out. */
  listVisible(scope: Scope): Promise<SourceEntity[]> {
    return withTenant(this.db, scope, (tx) =>
      this.visible(scope, tx)
        .andWhere('s.archived_at IS NULL')
        .orderBy('s.created_at', 'DESC')
        .addOrderBy('s.id', 'DESC')
        .getMany(),
    );
  }

  /** For the worker, which acts on ids from its jobs. */
  // crosses tenants: the worker's sync job names its source by id, whichever organization's
  findById(id: number, db: Db = this.db.manager): Promise<SourceEntity | null> {
    return db.getRepository(SourceEntity).findOneBy({ id });
  }

  /** A source the scope found (findLiveVisible), changed; the policy refuses one of another organization. */
  async update(
    scope: Pick<Scope, 'orgId'>,
    source: SourceEntity,
    changes: SourceChanges,
  ): Promise<SourceEntity> {
    Object.assign(source, changes);
    return withTenant(this.db, scope, (tx) => tx.getRepository(SourceEntity).save(source));
  }

  /** Forgets where the last sync stopped: the next one lists everything (after a config change). */
  async resetSyncState(scope: Pick<Scope, 'orgId'>, id: number): Promise<void> {
    await withTenant(this.db, scope, (tx) =>
      tx.getRepository(SourceEntity).update({ id, orgId: scope.orgId }, { syncState: null }),
    );
  }

  async archive(scope: Pick<Scope, 'orgId'>, id: number): Promise<void> {
    await withTenant(this.db, scope, (tx) =>
      tx.query(
        `UPDATE sources SET archived_at = now() WHERE id = $1 AND org_id = $2 AND archived_at IS NULL`,
        [id, scope.orgId],
      ),
    );
  }

  // crosses tenants: the worker's sync, on the source its job names
  async setStatus(id: number, status: SourceStatus, reason: string | null = null): Promise<void> {
    await this.db.getRepository(SourceEntity).update({ id }, { status, statusReason: reason });
  }

  /**
   * Every live source of a connection of the scope's organization stops with a readable reason (the connection
   * became inoperative), each reported in the same transaction.
   */
  async failByConnection(
    scope: Pick<Scope, 'orgId'>,
    connectionId: string,
    reason: string,
    report: SyncEndReport,
  ): Promise<void> {
    await withTenant(this.db, scope, async (tx) => {
      const [rows] = (await tx.query(
        `UPDATE sources SET status = 'error', status_reason = $2
         WHERE connection_id = $1 AND org_id = $3 AND archived_at IS NULL RETURNING id`,
        [connectionId, reason, scope.orgId],
      )) as [{ id: number }[], number];
      if (rows.length === 0) return;
      const failed = await tx.getRepository(SourceEntity).findBy({ id: In(rows.map((row) => row.id)) });
      for (const source of failed) await recordWebhookEvent(tx, source.orgId, report(source));
    });
  }

  // crosses tenants: the worker's sync, on the source its job names
  async saveSyncState(id: number, state: SourceSyncState): Promise<void> {
    await this.db.getRepository(SourceEntity).update({ id }, { syncState: state });
  }

  /** A finished sync: its state, status `synced` and the time, reported in the same transaction. */
  // crosses tenants: the worker's sync, on the source its job names
  async finishSync(id: number, state: SourceSyncState, report: SyncEndReport): Promise<void> {
    await this.endSync(
      id,
      { syncState: state, status: 'synced', statusReason: null, lastSyncedAt: new Date() },
      report,
    );
  }

  /** A sync that ended in error, with its reason, reported in the same transaction. */
  // crosses tenants: the worker's sync, on the source its job names
  async failSync(id: number, reason: string, report: SyncEndReport): Promise<void> {
    await this.endSync(id, { status: 'error', statusReason: reason }, report);
  }

  private async endSync(
    id: number,
    changes: Pick<SourceEntity, 'status' | 'statusReason'> &
      Partial<Pick<SourceEntity, 'syncState' | 'lastSyncedAt'>>,
    report: SyncEndReport,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      const sources = tx.getRepository(SourceEntity);
      await sources.update({ id }, changes);
      const ended = await sources.findOneByOrFail({ id });
      await recordWebhookEvent(tx, ended.orgId, report(ended));
    });
  }

  /** The counters of spec 2.9, recomputed from the documents so they stay exact across crashes and retries. */
  // crosses tenants: the worker's sync, on the source its job names
  async recount(id: number): Promise<void> {
    await this.db.query(
      `UPDATE sources s SET
         documents_synced = c.synced, documents_failed = c.failed, oversized_documents = c.oversized,
         documents_embedded = c.embedded, size = c.size, embedded_size = c.embedded_size
       FROM (
         SELECT count(*) FILTER (WHERE status = 'indexed')::int AS synced,
                count(*) FILTER (WHERE status = 'failed')::int AS failed,
                count(*) FILTER (WHERE status = 'oversized')::int AS oversized,
                count(*) FILTER (WHERE status = 'indexed' AND embedded)::int AS embedded,
                coalesce(sum(size) FILTER (WHERE status = 'indexed'), 0) AS size,
                coalesce(sum(embedded_size) FILTER (WHERE status = 'indexed' AND embedded), 0) AS embedded_size
         FROM documents WHERE source_id = $1
       ) c
       WHERE s.id = $1`,
      [id],
    );
  }

  /**
   * Live sources that must have a sync job, or lost it: those whose sync started and has not ended, and those
   * created more than `pendingAfterMs` ago whose first sync never ran (its enqueue failed after the commit, or
   * Redis lost it). Drag-and-drop sources are left out while pending: they sync when documents are added.
   */
  // crosses tenants: the worker's sweep of forgotten syncs covers every organization
  async unfinishedSyncIds(pendingAfterMs: number): Promise<number[]> {
    const rows = (await this.db.query(
      `SELECT id FROM sources
       WHERE archived_at IS NULL
         AND (status = 'syncing'
              OR (status = 'pending' AND store <> 'draganddrop'
                  AND created_at < now() - make_interval(secs => $1::double precision / 1000)))
       ORDER BY id`,
      [pendingAfterMs],
    )) as { id: number }[];
    return rows.map((row) => row.id);
  }

  /** Live sources, for the periodic-sync schedulers a worker (re)installs at start. */
  // crosses tenants: the schedulers' reconciler installs every organization's periodic syncs
  async liveIds(): Promise<number[]> {
    const rows = (await this.db.query(
      `SELECT id FROM sources WHERE archived_at IS NULL AND store <> 'draganddrop' ORDER BY id`,
    )) as { id: number }[];
    return rows.map((row) => row.id);
  }

  private visible(scope: Scope, tx: Db): SelectQueryBuilder<SourceEntity> {
    return whereVisible(tx.getRepository(SourceEntity).createQueryBuilder('s'), scope);
  }
}
