import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { webhookEvent } from '@app/contracts';
import { ErasureRecord, ErasureRepository, recordAudit, recordWebhookEvent } from '@app/persistence';
import { RoutineSchedules, SourceSyncQueue } from '@app/queues';
import { RunCancellation } from '@app/run-events';
import { StorageDriver } from '@app/storage';
import { EraseThreads } from './erase-threads';

const THREAD_BATCH = 20;
const FILE_BATCH = 50;
const ROUTINE_BATCH = 50;
const SOURCE_BATCH = 20;
const DOCUMENT_BATCH = 500;
/** How long an erasure waits for the workers to stop the user's running replies before deleting under them. */
const CANCEL_WAIT_MS = 30_000;
const CANCEL_POLL_MS = 250;

/**
 * Runs one erasure of an end user (CONTRACTS §20), from its receipt's row: stops the user's live replies, then
 * deletes, batch after batch, their threads (messages, run events, the files those hold), files (bytes first),
 * routines and their schedulers, sources with their documents and sync schedulers, connections, and what else
 * names them (ErasureRepository.deleteRest), then marks the receipt done, forgetting the id in clear, and tells webhooks
 * `user.erased` in that same transaction. Every step finds what is left, so a job run again after a worker died
 * (BullMQ's stalled-job recovery) finishes the work and counts every row once.
 */
@Injectable()
export class EraseUser {
  private readonly logger = new Logger(EraseUser.name);

  constructor(
    private readonly db: DataSource,
    private readonly erasures: ErasureRepository,
    private readonly eraseThreads: EraseThreads,
    private readonly storage: StorageDriver,
    private readonly routineSchedules: RoutineSchedules,
    private readonly sourceSyncs: SourceSyncQueue,
    private readonly cancellation: RunCancellation,
  ) {}

  async execute(erasureId: string): Promise<void> {
    const erasure = await this.erasures.get(erasureId);
    if (!erasure || erasure.status === 'done' || !erasure.userId) return;
    const { orgId, userId } = erasure;
    await this.stopLiveReplies(orgId, userId);

    for (;;) {
      const threadIds = await this.erasures.userThreadIds(orgId, userId, THREAD_BATCH);
      if (threadIds.length === 0) break;
      await this.eraseThreads.execute(orgId, threadIds, erasureId);
    }
    for (;;) {
      const files = await this.erasures.userFiles(orgId, userId, FILE_BATCH);
      if (files.length === 0) break;
      await Promise.all(files.map((file) => this.storage.delete(file.storageKey)));
      await this.eraseThreads.inTransaction(erasureId, (tx) =>
        this.erasures.deleteFiles(
          tx,
          orgId,
          files.map((file) => file.id),
        ),
      );
    }
    await this.removeRoutines(erasure, userId);
    await this.removeSources(erasure, userId);
    await this.eraseThreads.inTransaction(erasureId, (tx) =>
      this.erasures.deleteConnections(tx, orgId, userId),
    );
    await this.eraseThreads.inTransaction(erasureId, (tx) => this.erasures.deleteRest(tx, orgId, userId));

    await this.db.transaction(async (tx) => {
      const done = await this.erasures.finish(tx, erasureId);
      if (!done) return;
      await recordAudit(tx, {
        orgId,
        actor: done.requestedBy,
        action: 'user.erased',
        target: { type: 'erasure', id: done.id },
        details: { user_hash: done.userHash, counts: done.counts },
      });
      await recordWebhookEvent(
        tx,
        orgId,
        webhookEvent('user.erased', {
          erasure_id: done.id,
          user_hash: done.userHash,
          counts: done.counts,
          completed_at: done.completedAt?.toISOString() ?? null,
        }),
      );
      this.logger.log({ erasureId, counts: done.counts }, 'end user erased');
    });
  }

  /**
   * Archives the user's threads with a live reply (a worker stops such a run between steps, and a reply not
   * started yet never starts), tells the workers at once, and waits a while for the running ones to stop, so
   * no run writes into what is being deleted.
   */
  private async stopLiveReplies(orgId: string, userId: string): Promise<void> {
    const threadIds = await this.erasures.archiveLiveThreads(orgId, userId);
    for (const threadId of threadIds) await this.cancellation.requestCancel({ threadId });
    const deadline = Date.now() + CANCEL_WAIT_MS;
    while ((await this.erasures.runningReplies(orgId, userId)) > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, CANCEL_POLL_MS));
    }
  }

  // A scheduler is removed before its routine's row (so a firing finds no routine) and again after: the
  // workers' reconciliation may have set it back from the row in between.
  private async removeRoutines(erasure: ErasureRecord, userId: string): Promise<void> {
    for (;;) {
      const ids = await this.erasures.userRoutineIds(erasure.orgId, userId, ROUTINE_BATCH);
      if (ids.length === 0) break;
      for (const id of ids) await this.routineSchedules.remove(id);
      await this.eraseThreads.inTransaction(erasure.id, (tx) =>
        this.erasures.deleteRoutines(tx, erasure.orgId, ids),
      );
      for (const id of ids) await this.routineSchedules.remove(id);
    }
  }

  private async removeSources(erasure: ErasureRecord, userId: string): Promise<void> {
    for (;;) {
      const ids = await this.erasures.userSourceIds(erasure.orgId, userId, SOURCE_BATCH);
      if (ids.length === 0) break;
      for (const sourceId of ids) {
        await this.sourceSyncs.unschedule(sourceId);
        for (;;) {
          const removed = await this.eraseThreads.inTransaction(erasure.id, (tx) =>
            this.erasures.deleteSourceDocuments(tx, sourceId, DOCUMENT_BATCH),
          );
          if (!removed.documents) break;
        }
        await this.eraseThreads.inTransaction(erasure.id, (tx) =>
          this.erasures.deleteSource(tx, erasure.orgId, sourceId),
        );
        await this.sourceSyncs.unschedule(sourceId);
      }
    }
  }
}
