import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { ROUTINE_FIRING_JOB } from '@app/queues';
import { JobHandlersHost } from '../jobs/job-handlers';
import { FireRoutineJobHandler } from './fire-routine.job-handler';

/** Consumes `routine-firing` jobs (declared a @Processor in RoutineFiringModule.forRoot): one firing each. */
@Injectable()
export class RoutineFiringProcessor extends JobHandlersHost<typeof ROUTINE_FIRING_JOB> {
  constructor(settings: Settings, fireRoutine: FireRoutineJobHandler) {
    super(QUEUE.routineFiring, { [ROUTINE_FIRING_JOB]: fireRoutine }, settings.jobLockMs);
  }
}
