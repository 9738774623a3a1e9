import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Settings } from '@app/config';
import { dataSourceOptions } from './data-source';
import { AgentRepository } from './repositories/agent.repository';
import { AgentVersionRepository } from './repositories/agent-version.repository';
import { EvalRepository } from './repositories/eval.repository';
import { AiSdkChatRepository } from './repositories/ai-sdk-chat.repository';
import { UsageRepository } from './repositories/usage.repository';
import { UserBudgetRepository } from './repositories/user-budget.repository';
import { FeedbackRepository } from './repositories/feedback.repository';
import { AuditEventRepository } from './audit/audit-event.repository';
import { ErasureRepository } from './repositories/erasure.repository';
import { RetentionRepository } from './repositories/retention.repository';
import { UserExportRepository } from './repositories/user-export.repository';
import { ApiKeyRepository } from './repositories/api-key.repository';
import { ConversationFileRepository } from './repositories/conversation-file.repository';
import { IdempotencyKeyRepository } from './repositories/idempotency-key.repository';
import { CredentialEnvelopeRepository } from './repositories/credential-envelope.repository';
import { DeploymentSecretRepository } from './repositories/deployment-secret.repository';
import { McpCatalogueRepository } from './repositories/mcp-catalogue.repository';
import { MemoryFileRepository } from './repositories/memory-file.repository';
import { EndUserMemoryNamespaceRepository } from './repositories/end-user-memory-namespace.repository';
import { MessageRepository } from './repositories/message.repository';
import { OrganizationRepository } from './repositories/organization.repository';
import { RunRepository } from './repositories/run.repository';
import { ShareLinkRepository } from './repositories/share-link.repository';
import { ThreadRepository } from './repositories/thread.repository';
import { ThreadSummaryRepository } from './repositories/thread-summary.repository';
import { ToolApprovalRepository } from './repositories/tool-approval.repository';
import { WebhookRepository } from './repositories/webhook.repository';
import { RoutineRepository } from './repositories/routine.repository';

const REPOSITORIES = [
  OrganizationRepository,
  ApiKeyRepository,
  AgentRepository,
  AgentVersionRepository,
  McpCatalogueRepository,
  MemoryFileRepository,
  EndUserMemoryNamespaceRepository,
  ThreadRepository,
  ThreadSummaryRepository,
  ToolApprovalRepository,
  MessageRepository,
  RunRepository,
  ConversationFileRepository,
  ShareLinkRepository,
  WebhookRepository,
  RoutineRepository,
  IdempotencyKeyRepository,
  DeploymentSecretRepository,
  CredentialEnvelopeRepository,
  AiSdkChatRepository,
  UsageRepository,
  UserBudgetRepository,
  FeedbackRepository,
  AuditEventRepository,
  ErasureRepository,
  UserExportRepository,
  RetentionRepository,
  EvalRepository,
];

/** The data source (PostgreSQL, the system of record) and the repositories every app shares. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [Settings],
      useFactory: (settings: Settings) => dataSourceOptions(settings),
    }),
  ],
  providers: REPOSITORIES,
  exports: REPOSITORIES,
})
export class PersistenceModule {}
