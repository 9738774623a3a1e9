import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { createRedisConnection } from '@app/redis';
import { AgentRunQueue } from './agent-run.queue';
import { RunCancellation } from './run-cancellation';
import { SourceSyncQueue } from './source-sync.queue';

/**
 * BullMQ on the deployment's Redis, every queue key under REDIS_PREFIX. The gateway uses it to enqueue,
 * the worker to consume (its processors register on the same queue names).
 */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [Settings],
      useFactory: (settings: Settings) => ({
        connection: createRedisConnection(settings, 'bullmq'),
        prefix: settings.redisPrefix,
      }),
    }),
    BullModule.registerQueue({ name: QUEUE.agentRun }, { name: QUEUE.sourceSync }),
  ],
  providers: [AgentRunQueue, RunCancellation, SourceSyncQueue],
  exports: [BullModule, AgentRunQueue, RunCancellation, SourceSyncQueue],
})
export class QueuesModule {}
