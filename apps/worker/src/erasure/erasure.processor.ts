import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { ERASE_USER_JOB, RETENTION_JOB } from '@app/queues';
import { JobHandlersHost } from '../jobs/job-handlers';
import { ApplyRetentionJobHandler } from './apply-retention.job-handler';
import { EraseUserJobHandler } from './erase-user.job-handler';

/** Consumes the `erasure` queue (declared a @Processor in ErasureModule.forRoot): each job to its name's handler. */
@Injectable()
export class ErasureProcessor extends JobHandlersHost<typeof ERASE_USER_JOB | typeof RETENTION_JOB> {
  constructor(settings: Settings, eraseUser: EraseUserJobHandler, applyRetention: ApplyRetentionJobHandler) {
    super(
      QUEUE.erasure,
      {
        [ERASE_USER_JOB]: eraseUser,
        [RETENTION_JOB]: applyRetention,
      },
      settings.jobLockMs,
    );
  }
}
