import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { EraseUserJob } from '@app/contracts';
import { JobHandler } from '../jobs/job-handlers';
import { EraseUser } from './erase-user.use-case';

/** ERASE_USER_JOB: one end user's erasure, by the id of its row (which holds what to erase and how far it got). */
@Injectable()
export class EraseUserJobHandler implements JobHandler<EraseUserJob> {
  constructor(private readonly eraseUser: EraseUser) {}

  async handle(job: Job<EraseUserJob>): Promise<void> {
    await this.eraseUser.execute(job.data.erasureId);
  }
}
