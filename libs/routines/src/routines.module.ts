import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { ThreadStartModule } from '@app/chat';
import { FireRoutine } from './fire-routine.use-case';
import { RoutineMetrics } from './routine-metrics';

/** Firing routines (the worker) and starting one now (the gateway's POST /routines/{id}/run). */
@Module({
  imports: [QueuesModule, ThreadStartModule],
  providers: [FireRoutine, RoutineMetrics],
  exports: [FireRoutine, RoutineMetrics, ThreadStartModule],
})
export class RoutinesModule {}
