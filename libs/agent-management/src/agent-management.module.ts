import { Module } from '@nestjs/common';
import { CryptoModule } from '@app/crypto';
import { McpServers } from './mcp-servers';
import { ArchiveAgent } from './use-cases/archive-agent.use-case';
import { CreateAgent } from './use-cases/create-agent.use-case';
import { GetAgent } from './use-cases/get-agent.use-case';
import { ListAgents } from './use-cases/list-agents.use-case';
import { UpdateAgent } from './use-cases/update-agent.use-case';

const USE_CASES = [CreateAgent, ListAgents, GetAgent, UpdateAgent, ArchiveAgent];

/** Managing an organization's agents: the use cases of the /agents routes and the admin CLI's `agents:*`. */
@Module({ imports: [CryptoModule], providers: [McpServers, ...USE_CASES], exports: USE_CASES })
export class AgentManagementModule {}
