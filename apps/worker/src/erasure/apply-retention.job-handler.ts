import { Injectable } from '@nestjs/common';
import { JobHandler } from '../jobs/job-handlers';
import { ApplyRetention } from './apply-retention.use-case';

/** RETENTION_JOB: the deployment's retention run (its scheduler's daily tick, or one asked for now); no data. */
@Injectable()
export class ApplyRetentionJobHandler implements JobHandler {
  constructor(private readonly applyRetention: ApplyRetention) {}

  async handle(): Promise<void> {
    await this.applyRetention.execute();
  }
}
