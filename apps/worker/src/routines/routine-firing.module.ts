import { DynamicModule, Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { RoutinesModule } from '@app/routines';
import { declareConsumer } from '../jobs/declare-consumer';
import { FireRoutineJobHandler } from './fire-routine.job-handler';
import { FiringAdmissionModule } from './firing-admission.module';
import { RoutineFiringProcessor } from './routine-firing.processor';

/** A firing stores a thread and enqueues its reply: quick, so a few at once per worker are plenty. */
const FIRING_CONCURRENCY = 4;

/** The `routine-firing` consumer (the routines' schedulers are SchedulersModule's). */
@Module({})
export class RoutineFiringModule {
  static forRoot(settings: Settings): DynamicModule {
    declareConsumer(RoutineFiringProcessor, QUEUE.routineFiring, settings, {
      concurrency: FIRING_CONCURRENCY,
    });
    return {
      module: RoutineFiringModule,
      imports: [QueuesModule, FiringAdmissionModule, RoutinesModule],
      providers: [RoutineFiringProcessor, FireRoutineJobHandler],
    };
  }
}
