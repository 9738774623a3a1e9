import { WorkerHost } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { SyncSource } from '@app/knowledge';
import { QUEUE } from '@app/contracts';
import { processInJobTrace, SOURCE_SYNC_TICK_JOB, SourceSyncJob, SourceSyncQueue } from '@app/queues';

/**
 * Consumes `source-sync` jobs (declared a @Processor in SourceSyncModule.forRoot, with the worker settings).
 * A scheduler's tick only asks for a sync, so it never runs beside one already queued or running. A sync
 * continues the trace of the request (or tick) that asked for it.
 */
@Injectable()
export class SourceSyncProcessor extends WorkerHost {
  constructor(
    private readonly syncSource: SyncSource,
    private readonly syncs: SourceSyncQueue,
  ) {
    super();
  }

  process(job: Job<SourceSyncJob>): Promise<void> {
    return processInJobTrace(QUEUE.sourceSync, job, async () => {
      if (job.name === SOURCE_SYNC_TICK_JOB) await this.syncs.enqueue(job.data.sourceId);
      else await this.syncSource.execute(job.data.sourceId);
    });
  }
}
