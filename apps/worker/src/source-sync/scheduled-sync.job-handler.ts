import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { QUEUE } from '@app/contracts';
import { processInJobTrace, SourceSyncJob, SourceSyncQueue } from '@app/queues';
import { JobHandler } from '../jobs/job-handlers';

/**
 * SOURCE_SYNC_TICK_JOB, a source's scheduler come due: it only asks for a sync (SOURCE_SYNC_JOB), so it never runs
 * beside one already queued or running.
 */
@Injectable()
export class ScheduledSyncJobHandler implements JobHandler<SourceSyncJob> {
  constructor(private readonly syncs: SourceSyncQueue) {}

  handle(job: Job<SourceSyncJob>): Promise<void> {
    return processInJobTrace(QUEUE.sourceSync, job, async () => {
      await this.syncs.enqueue(job.data.sourceId);
    });
  }
}
