import { Module } from '@nestjs/common';
import { CredentialCipherModule } from '@app/persistence';
import { McpServers } from './mcp-servers';
import { GetAgentVersion, ListAgentVersions, RestoreAgentVersion } from './use-cases/agent-versions.use-case';
import { ArchiveAgent } from './use-cases/archive-agent.use-case';
import { CreateAgent } from './use-cases/create-agent.use-case';
import { GetAgent } from './use-cases/get-agent.use-case';
import { ListAgents } from './use-cases/list-agents.use-case';
import { ListMcpServers } from './use-cases/list-mcp-servers.use-case';
import { RegisterMcpServer } from './use-cases/register-mcp-server.use-case';
import { RemoveMcpServer } from './use-cases/remove-mcp-server.use-case';
import { UpdateAgent } from './use-cases/update-agent.use-case';

const USE_CASES = [
  CreateAgent,
  ListAgents,
  GetAgent,
  UpdateAgent,
  ArchiveAgent,
  ListAgentVersions,
  GetAgentVersion,
  RestoreAgentVersion,
  RegisterMcpServer,
  ListMcpServers,
  RemoveMcpServer,
];

/**
 * Managing an organization's agents (the use cases of the /agents routes and the admin CLI's `agents:*`) and the
 * operator's catalogue of stdio MCP servers they may name (`mcp:*`).
 */
@Module({ imports: [CredentialCipherModule], providers: [McpServers, ...USE_CASES], exports: USE_CASES })
export class AgentManagementModule {}
