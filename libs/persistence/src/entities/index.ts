import { AgentEntity } from './agent.entity';
import { ApiKeyEntity } from './api-key.entity';
import { ConnectionEntity } from './connection.entity';
import { DocumentEntity } from './document.entity';
import { ConversationFileEntity } from './conversation-file.entity';
import { MemoryFileEntity } from './memory-file.entity';
import { MessageEntity } from './message.entity';
import { OrganizationEntity } from './organization.entity';
import { PassageEntity } from './passage.entity';
import { QueryTemplateEntity } from './query-template.entity';
import { RunStepEntity } from './run-step.entity';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { ShareLinkEntity } from './share-link.entity';
import { SkillEntity, SkillSettingEntity } from './skill.entity';
import { SourceEntity } from './source.entity';
import { ThreadEntity } from './thread.entity';
import { ToolCallEntity } from './tool-call.entity';
import { WebhookAttemptEntity, WebhookDeliveryEntity, WebhookEntity } from './webhook.entity';
import { RoutineEntity } from './routine.entity';
import { McpCatalogueEntryEntity } from './mcp-catalogue-entry.entity';

export * from './agent.entity';
export * from './api-key.entity';
export * from './column-types';
export * from './connection.entity';
export * from './document.entity';
export * from './conversation-file.entity';
export * from './memory-file.entity';
export * from './message.entity';
export * from './organization.entity';
export * from './passage.entity';
export * from './query-template.entity';
export * from './run-step.entity';
export * from './share-link.entity';
export * from './idempotency-key.entity';
export * from './skill.entity';
export * from './source.entity';
export * from './thread.entity';
export * from './tool-call.entity';
export * from './webhook.entity';
export * from './routine.entity';
export * from './mcp-catalogue-entry.entity';

/** Every entity, listed (not globbed) so the apps and the TypeORM CLI see the same set. */
export const ENTITIES = [
  OrganizationEntity,
  ApiKeyEntity,
  AgentEntity,
  ThreadEntity,
  MessageEntity,
  QueryTemplateEntity,
  SkillEntity,
  SkillSettingEntity,
  MemoryFileEntity,
  RunStepEntity,
  ToolCallEntity,
  ConversationFileEntity,
  ShareLinkEntity,
  ConnectionEntity,
  SourceEntity,
  DocumentEntity,
  PassageEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
  WebhookAttemptEntity,
  IdempotencyKeyEntity,
  RoutineEntity,
  McpCatalogueEntryEntity,
];
