import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { RoutineFiringJob } from '@app/contracts';
import { FireRoutine } from '@app/routines';
import { JobHandler } from '../jobs/job-handlers';

/** ROUTINE_FIRING_JOB, one firing of a routine at its slot. */
@Injectable()
export class FireRoutineJobHandler implements JobHandler<RoutineFiringJob> {
  constructor(private readonly fireRoutine: FireRoutine) {}

  async handle(job: Job<RoutineFiringJob>): Promise<void> {
    // A scheduler's job carries its slot as `prevMillis`; a caught-up missed firing names its slot in the data.
    const slot = job.data.slot ? new Date(job.data.slot) : new Date(job.opts.prevMillis ?? job.timestamp);
    await this.fireRoutine.execute(job.data.routineId, slot);
  }
}
