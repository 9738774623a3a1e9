import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { createRedisConnection, queueConnectionOptions, queuePrefix, RedisRole } from '@app/redis';
import { AgentRunQueue } from './agent-run.queue';
import { ErasureQueue } from './erasure.queue';
import { QueueIncidents } from './queue-incidents';
import { RoutineSchedules } from './routine-schedules';
import { RunStartWaits } from './run-start-waits';
import { SourceSyncQueue } from './source-sync.queue';
import { WebhookDeliveryQueue } from './webhook-delivery.queue';

/**
 * BullMQ's connection to the deployment's Redis, every queue key under REDIS_PREFIX (hash-tagged on a cluster):
 * imported once by an app's root module, like the other connections.
 */
@Module({})
export class QueueConnectionModule {
  /** `requests` for a process that only enqueues (the gateway: fails fast), `background` for one that consumes. */
  static forRoot(role: RedisRole): DynamicModule {
    return {
      module: QueueConnectionModule,
      imports: [
        BullModule.forRootAsync({
          inject: [Settings],
          useFactory: (settings: Settings) => ({
            connection: createRedisConnection(settings, 'bullmq', queueConnectionOptions(role)),
            prefix: queuePrefix(settings),
          }),
        }),
      ],
    };
  }
}

/**
 * The queues and what enqueues on them, for the modules that use them: the gateway enqueues, the worker also
 * consumes (its processors register on the same queue names).
 */
@Module({
  imports: [
    DiscoveryModule,
    BullModule.registerQueue(
      { name: QUEUE.agentRun },
      { name: QUEUE.sourceSync },
      { name: QUEUE.webhookDelivery },
      { name: QUEUE.routineFiring },
      { name: QUEUE.erasure },
    ),
  ],
  providers: [
    AgentRunQueue,
    SourceSyncQueue,
    WebhookDeliveryQueue,
    RoutineSchedules,
    ErasureQueue,
    QueueIncidents,
    RunStartWaits,
  ],
  exports: [
    BullModule,
    AgentRunQueue,
    SourceSyncQueue,
    WebhookDeliveryQueue,
    RoutineSchedules,
    ErasureQueue,
    RunStartWaits,
  ],
})
export class QueuesModule {}
