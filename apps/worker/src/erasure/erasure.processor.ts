import { WorkerHost } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { ERASE_USER_JOB, RETENTION_JOB } from '@app/queues';
import { JobHandlers } from '../jobs/job-handlers';
import { ApplyRetentionJobHandler } from './apply-retention.job-handler';
import { EraseUserJobHandler } from './erase-user.job-handler';

/** Consumes the `erasure` queue (declared a @Processor in ErasureModule.forRoot): each job to its name's handler. */
@Injectable()
export class ErasureProcessor extends WorkerHost {
  private readonly handlers: JobHandlers<typeof ERASE_USER_JOB | typeof RETENTION_JOB>;

  constructor(settings: Settings, eraseUser: EraseUserJobHandler, applyRetention: ApplyRetentionJobHandler) {
    super();
    this.handlers = new JobHandlers(
      QUEUE.erasure,
      {
        [ERASE_USER_JOB]: eraseUser,
        [RETENTION_JOB]: applyRetention,
      },
      settings.jobLockMs,
    );
  }

  process(job: Job, token?: string): Promise<void> {
    return this.handlers.handle(job, token);
  }
}
