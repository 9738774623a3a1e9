import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { QUEUE } from '@app/contracts';
import { SyncSource } from '@app/knowledge';
import { processInJobTrace, SourceSyncJob } from '@app/queues';
import { JobHandler } from '../jobs/job-handlers';

/** SOURCE_SYNC_JOB, the sync of one source, in the trace of the request (or tick) that asked for it. */
@Injectable()
export class SyncSourceJobHandler implements JobHandler<SourceSyncJob> {
  constructor(private readonly syncSource: SyncSource) {}

  handle(job: Job<SourceSyncJob>): Promise<void> {
    return processInJobTrace(QUEUE.sourceSync, job, () => this.syncSource.execute(job.data.sourceId));
  }
}
