import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { TerminusModule } from '@nestjs/terminus';
import { ReplyStreamModule } from '../reply-stream/reply-stream.module';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';

/** Health and metrics routes; the OpenAPI page and the queue dashboard are mounted by `setupOps`. */
@Module({
  imports: [QueuesModule, TerminusModule, ReplyStreamModule],
  controllers: [HealthController, MetricsController],
})
export class OpsModule {}
