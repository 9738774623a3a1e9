import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { webhookEvent } from '@app/contracts';
import { ErasureRecord, ErasureRepository, recordAudit, recordWebhookEvent } from '@app/persistence';
import { RoutineSchedules, SourceSyncQueue } from '@app/queues';
import { EraseThreads } from './erase-threads';
import { StopReplies } from './stop-replies';

const THREAD_BATCH = 20;
const FILE_BATCH = 50;
const ROUTINE_BATCH = 50;
const SOURCE_BATCH = 20;
const DOCUMENT_BATCH = 500;
const MEMORY_BATCH = 500;

/**
 * Runs one erasure of an end user (CONTRACTS §20, §21), from its receipt's row: ends the user's live replies
 * through the cancel path and waits until none runs (StopReplies; while one still runs, the job fails and is
 * tried again, deleting nothing), then deletes, batch after batch, their threads (messages, what Redis holds of
 * their replies, the files those hold), files (EraseThreads.eraseFiles), routines and their schedulers, sources
 * with their documents and sync schedulers, connections, and what else names them (ErasureRepository.deleteRest),
 * then marks the receipt done, forgetting the id in clear, and tells webhooks `user.erased` in that same
 * transaction. Every step finds what is left, so a job run again after a worker died (BullMQ's stalled-job
 * recovery) finishes the work and counts every row once.
 */
@Injectable()
export class EraseUser {
  private readonly logger = new Logger(EraseUser.name);

  constructor(
    private readonly db: DataSource,
    private readonly erasures: ErasureRepository,
    private readonly eraseThreads: EraseThreads,
    private readonly stopReplies: StopReplies,
    private readonly routineSchedules: RoutineSchedules,
    private readonly sourceSyncs: SourceSyncQueue,
  ) {}

  async execute(erasureId: string): Promise<void> {
    const erasure = await this.erasures.get(erasureId);
    if (!erasure || erasure.status === 'done' || !erasure.userId) return;
    const { orgId, userId } = erasure;
    await this.stopReplies.stop(orgId, await this.erasures.liveThreadIds(orgId, userId));

    for (;;) {
      const threadIds = await this.erasures.userThreadIds(orgId, userId, THREAD_BATCH);
      if (threadIds.length === 0) break;
      await this.eraseThreads.execute(orgId, threadIds, erasureId);
    }
    for (;;) {
      const files = await this.erasures.userFiles(orgId, userId, FILE_BATCH);
      if (files.length === 0) break;
      await this.eraseThreads.eraseFiles(orgId, files, erasureId);
    }
    await this.removeMemory(erasureId, orgId, userId);
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

  /** Memory files the user's runs wrote and those of namespaces granted in their tokens, then those grants. */
  private async removeMemory(erasureId: string, orgId: string, userId: string): Promise<void> {
    for (;;) {
      const removed = await this.eraseThreads.inTransaction(erasureId, (tx) =>
        this.erasures.deleteMemoryFiles(tx, orgId, userId, MEMORY_BATCH),
      );
      if ((removed.memory_files ?? 0) < MEMORY_BATCH) break;
    }
    await this.eraseThreads.inTransaction(erasureId, (tx) =>
      this.erasures.deleteMemoryNamespaces(tx, orgId, userId),
    );
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
