import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { SOURCE_SYNC_JOB, SOURCE_SYNC_TICK_JOB } from '@app/queues';
import { JobHandlersHost } from '../jobs/job-handlers';
import { ScheduledSyncJobHandler } from './scheduled-sync.job-handler';
import { SyncSourceJobHandler } from './sync-source.job-handler';

/**
 * Consumes `source-sync` jobs (declared a @Processor in SourceSyncModule.forRoot, with the worker settings): a
 * sync, or a scheduler's tick that asks for one, each to its name's handler.
 */
@Injectable()
export class SourceSyncProcessor extends JobHandlersHost<
  typeof SOURCE_SYNC_JOB | typeof SOURCE_SYNC_TICK_JOB
> {
  constructor(settings: Settings, syncSource: SyncSourceJobHandler, scheduledSync: ScheduledSyncJobHandler) {
    super(
      QUEUE.sourceSync,
      {
        [SOURCE_SYNC_JOB]: syncSource,
        [SOURCE_SYNC_TICK_JOB]: scheduledSync,
      },
      settings.jobLockMs,
    );
  }
}
