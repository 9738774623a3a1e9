import { WorkerHost } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { ROUTINE_FIRING_JOB } from '@app/queues';
import { JobHandlers } from '../jobs/job-handlers';
import { FireRoutineJobHandler } from './fire-routine.job-handler';

/** Consumes `routine-firing` jobs (declared a @Processor in RoutineFiringModule.forRoot): one firing each. */
@Injectable()
export class RoutineFiringProcessor extends WorkerHost {
  private readonly handlers: JobHandlers<typeof ROUTINE_FIRING_JOB>;

  constructor(settings: Settings, fireRoutine: FireRoutineJobHandler) {
    super();
    this.handlers = new JobHandlers(
      QUEUE.routineFiring,
      { [ROUTINE_FIRING_JOB]: fireRoutine },
      settings.jobLockMs,
    );
  }

  process(job: Job, token?: string): Promise<void> {
    return this.handlers.handle(job, token);
  }
}
