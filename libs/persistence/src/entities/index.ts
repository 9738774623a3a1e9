import { AgentEntity } from './agent.entity';
import { ApiKeyEntity } from './api-key.entity';
import { MemoryFileEntity } from './memory-file.entity';
import { MessageEntity } from './message.entity';
import { OrganizationEntity } from './organization.entity';
import { ThreadEntity } from './thread.entity';

export * from './agent.entity';
export * from './api-key.entity';
export * from './column-types';
export * from './memory-file.entity';
export * from './message.entity';
export * from './organization.entity';
export * from './thread.entity';

/** Every entity, listed (not globbed) so the apps and the TypeORM CLI see the same set. */
export const ENTITIES = [
  OrganizationEntity,
  ApiKeyEntity,
  AgentEntity,
  ThreadEntity,
  MessageEntity,
  MemoryFileEntity,
];
