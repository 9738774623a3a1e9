import { DynamicModule, Module } from '@nestjs/common';
import { McpToolsModule, WebToolModule } from '@app/agent';
import { Settings, SettingsModule } from '@app/config';
import { MemoryToolsModule } from '@app/memory/tools';
import { LoggingModule } from '@app/observability';
import { PersistenceModule } from '@app/persistence';
import { QueueConnectionModule } from '@app/queues';
import { RedisModule } from '@app/redis';
import { SkillToolsModule } from '@app/skills/tools';
import { AgentRunModule } from './agent-run/agent-run.module';
import { ErasureModule } from './erasure/erasure.module';
import { WorkerHealthModule } from './health/worker-health.module';
import { RoutineFiringModule } from './routines/routine-firing.module';
import { SchedulersModule } from './schedulers/schedulers.module';
import { SourceSyncModule } from './source-sync/source-sync.module';
import { WebhookDeliveryModule } from './webhooks/webhook-delivery.module';

/** The worker: BullMQ processors for agent runs, source syncs, webhook deliveries and routine firings, erasures; no API. */
@Module({})
export class WorkerModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        SettingsModule.forRoot(settings),
        LoggingModule.forApp('worker'),
        PersistenceModule,
        RedisModule.forRoot('background'),
        QueueConnectionModule.forRoot('background'),
        AgentRunModule.forRoot(settings),
        SourceSyncModule.forRoot(settings),
        WebhookDeliveryModule.forRoot(settings),
        RoutineFiringModule.forRoot(settings),
        ErasureModule.forRoot(settings),
        SchedulersModule,
        WorkerHealthModule,
        MemoryToolsModule,
        WebToolModule,
        McpToolsModule,
        SkillToolsModule,
      ],
    };
  }
}
