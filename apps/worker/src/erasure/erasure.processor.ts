import { WorkerHost } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { EraseUserJob } from '@app/contracts';
import { RETENTION_JOB } from '@app/queues';
import { ApplyRetention } from './apply-retention.use-case';
import { EraseUser } from './erase-user.use-case';

/** Consumes the `erasure` queue (declared a @Processor in ErasureModule.forRoot): an erasure, or retention's run. */
@Injectable()
export class ErasureProcessor extends WorkerHost {
  constructor(
    private readonly eraseUser: EraseUser,
    private readonly applyRetention: ApplyRetention,
  ) {
    super();
  }

  async process(job: Job<EraseUserJob>): Promise<void> {
    if (job.name === RETENTION_JOB) await this.applyRetention.execute();
    else await this.eraseUser.execute(job.data.erasureId);
  }
}
