import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, DiscoveryModule } from '@nestjs/core';
import { Settings, SettingsModule } from '@app/config';
import { LoggingModule } from '@app/observability';
import { PersistenceModule } from '@app/persistence';
import { QueueConnectionModule } from '@app/queues';
import { RedisModule } from '@app/redis';
import { AdmissionModule } from './admission/admission.module';
import { AgentsModule } from './agents/agents.module';
import { EvalsModule } from './evals/evals.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { ChatModule } from './chat/chat.module';
import { EndUserTokensModule } from './end-user-tokens/end-user-tokens.module';
import { FilesModule } from './files/files.module';
import { RequestDtoCheck } from './http/api-validation.interceptor';
import { HttpErrorFilter } from './http/http-error.filter';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { MemoryModule } from './memory/memory.module';
import { OpsModule } from './ops/ops.module';
import { PlaygroundModule } from './playground/playground.module';
import { McpServerModule } from './protocols/mcp/mcp-server.module';
import { ResponsesModule } from './protocols/responses/responses.module';
import { AiSdkModule } from './protocols/ai-sdk/ai-sdk.module';
import { A2aModule } from './protocols/a2a/a2a.module';
import { AgUiModule } from './protocols/ag-ui/ag-ui.module';
import { SkillsModule } from './skills/skills.module';
import { SourcesModule } from './sources/sources.module';
import { StreamModule } from './stream/stream.module';
import { TemplatesModule } from './templates/templates.module';
import { RoutinesApiModule } from './routines/routines.module';
import { UsageModule } from './usage/usage.module';
import { UserBudgetsModule } from './budgets/user-budgets.module';
import { FeedbackModule } from './feedback/feedback.module';
import { ErasureModule } from './erasure/erasure.module';
import { WebhooksApiModule } from './webhooks/webhooks.module';

/** The HTTP API: one module per area of the spec, behind the service-token guard. */
@Module({})
export class GatewayModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        SettingsModule.forRoot(settings),
        LoggingModule.forApp('gateway'),
        DiscoveryModule,
        PersistenceModule,
        RedisModule.forRoot('requests'),
        QueueConnectionModule.forRoot('requests'),
        AuthModule,
        AdmissionModule,
        OpsModule,
        ChatModule,
        IdempotencyModule,
        FilesModule,
        MemoryModule,
        TemplatesModule,
        WebhooksApiModule,
        UsageModule,
        UserBudgetsModule,
        FeedbackModule,
        AuditModule,
        ErasureModule,
        RoutinesApiModule,
        SkillsModule,
        SourcesModule,
        StreamModule,
        AgentsModule,
        EvalsModule,
        ResponsesModule,
        McpServerModule,
        EndUserTokensModule,
        AiSdkModule,
        A2aModule,
        AgUiModule,
        ...(settings.playgroundEnabled ? [PlaygroundModule] : []),
      ],
      providers: [{ provide: APP_FILTER, useClass: HttpErrorFilter }, RequestDtoCheck],
    };
  }
}
