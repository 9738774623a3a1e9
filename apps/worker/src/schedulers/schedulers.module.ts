import { Module } from '@nestjs/common';
import { KnowledgeModule } from '@app/knowledge';
import { QueuesModule } from '@app/queues';
import { ReconcileSchedulers } from './reconcile-schedulers';
import { SchedulerMetrics } from './scheduler-metrics';

/** The job schedulers of routines, sources and retention, and erasures' jobs, kept in line with PostgreSQL on this worker. */
@Module({
  imports: [QueuesModule, KnowledgeModule],
  providers: [ReconcileSchedulers, SchedulerMetrics],
})
export class SchedulersModule {}
