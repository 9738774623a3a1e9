import { WorkerHost } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { RoutineFiringJob } from '@app/contracts';
import { FireRoutine } from '@app/routines';

/** Consumes `routine-firing` jobs (declared a @Processor in RoutineFiringModule.forRoot): one firing each. */
@Injectable()
export class RoutineFiringProcessor extends WorkerHost {
  constructor(private readonly fireRoutine: FireRoutine) {
    super();
  }

  async process(job: Job<RoutineFiringJob>): Promise<void> {
    // A scheduler's job carries its slot as `prevMillis`; a caught-up missed firing names its slot in the data.
    const slot = job.data.slot ? new Date(job.data.slot) : new Date(job.opts.prevMillis ?? job.timestamp);
    await this.fireRoutine.execute(job.data.routineId, slot);
  }
}
