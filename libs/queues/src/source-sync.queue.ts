import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { QUEUE } from '@app/contracts';
import { installedSchedulerIds } from './installed-schedulers';
import { TracedJobData, withTraceContext } from './job-trace-context';

/** A sync of one source; the job carries its id only, and the trace context of who asked. */
export interface SourceSyncJob extends TracedJobData {
  sourceId: number;
}

/** The sync itself. */
export const SOURCE_SYNC_JOB = 'sync-source';
/** What a source's job scheduler produces: it asks for a sync, which is not doubled when one is under way. */
export const SOURCE_SYNC_TICK_JOB = 'scheduled-sync';

/** BullMQ refuses custom ids that are integers: `source-<id>`. */
const sourceSyncJobId = (sourceId: number) => `source-${sourceId}`;
const SCHEDULER_ID_PREFIX = 'source-sync-';
const schedulerId = (sourceId: number) => `${SCHEDULER_ID_PREFIX}${sourceId}`;

/**
 * Enqueues source syncs. The job id is the source's: while a sync of a source is queued or running, asking
 * again is a no-op (BullMQ keeps one job per id); finished jobs are removed so the next request can run.
 */
@Injectable()
export class SourceSyncQueue {
  constructor(@InjectQueue(QUEUE.sourceSync) private readonly queue: Queue<SourceSyncJob>) {}

  /** True when a new sync was queued, false when one was already queued or running. */
  async enqueue(sourceId: number): Promise<boolean> {
    const jobId = sourceSyncJobId(sourceId);
    const existing = await this.queue.getJob(jobId);
    if (existing) {
      const state = await existing.getState();
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false;
      await existing.remove().catch(() => undefined);
    }
    await this.queue.add(SOURCE_SYNC_JOB, withTraceContext({ sourceId }), {
      jobId,
      attempts: 3,
      backoff: { type: 'exponential', delay: 5000 },
      removeOnComplete: true,
      removeOnFail: true,
    });
    return true;
  }

  /** A sync every `everySeconds` (0: none), through a BullMQ job scheduler per source. */
  async schedule(sourceId: number, everySeconds: number): Promise<void> {
    if (everySeconds <= 0) return this.unschedule(sourceId);
    await this.queue.upsertJobScheduler(
      schedulerId(sourceId),
      { every: everySeconds * 1000 },
      {
        name: SOURCE_SYNC_TICK_JOB,
        data: { sourceId },
        opts: { removeOnComplete: true, removeOnFail: true },
      },
    );
  }

  /** The ids of the sources that have a periodic-sync scheduler: one read of the queue's scheduler index. */
  async scheduledIds(): Promise<Set<number>> {
    const ids = await installedSchedulerIds(this.queue);
    return new Set(
      ids
        .filter((id) => id.startsWith(SCHEDULER_ID_PREFIX))
        .map((id) => Number(id.slice(SCHEDULER_ID_PREFIX.length))),
    );
  }

  async unschedule(sourceId: number): Promise<void> {
    await this.queue.removeJobScheduler(schedulerId(sourceId));
  }
}
