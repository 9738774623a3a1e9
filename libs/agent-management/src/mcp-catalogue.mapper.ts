import { McpCatalogueEntryResponse } from '@app/contracts';
import { McpCatalogueEntryEntity } from '@app/persistence';

export function toMcpCatalogueEntryResponse(entry: McpCatalogueEntryEntity): McpCatalogueEntryResponse {
  return {
    name: entry.name,
    command: entry.command,
    args: entry.args,
    env_allow: entry.envAllow,
    confirmed: entry.confirmed,
    created_at: entry.createdAt.toISOString(),
    updated_at: entry.updatedAt.toISOString(),
  };
}
