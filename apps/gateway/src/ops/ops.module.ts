import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { TerminusModule } from '@nestjs/terminus';
import { ReplyStreamModule } from '../reply-stream/reply-stream.module';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { PostgresReadinessProbe } from './postgres-readiness.probe';

/** Health and metrics routes; the OpenAPI page and the queue dashboard are mounted by `setupOps`. */
@Module({
  imports: [QueuesModule, TerminusModule, ReplyStreamModule],
  controllers: [HealthController, MetricsController],
  providers: [PostgresReadinessProbe],
})
export class OpsModule {}
