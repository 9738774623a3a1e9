import { AgentResponse } from '@app/contracts';
import { AgentEntity } from '@app/persistence';
import { toMcpServerResponse } from './mcp-servers';

export function toAgentResponse(agent: AgentEntity): AgentResponse {
  return {
    id: agent.id,
    organization_id: agent.orgId,
    name: agent.name,
    instructions: agent.instructions,
    model: agent.model,
    memory_namespace: agent.memoryNamespace,
    token_budget: agent.tokenBudget,
    tokens_used: agent.tokensUsed,
    tools: agent.tools,
    mcp: agent.mcpServers.map(toMcpServerResponse),
    temperature: agent.modelOptions.temperature ?? null,
    max_output_tokens: agent.modelOptions.maxOutputTokens ?? null,
    archived: agent.archivedAt !== null,
    created_at: agent.createdAt.toISOString(),
  };
}
