import {
  AgentResponse,
  AgentVersionResponse,
  CompactionDto,
  DEFAULT_KEEP_RECENT_MESSAGES,
  GuardrailsDto,
} from '@app/contracts';
import { AgentEntity, AgentVersion, CompactionSettings, GuardrailSettings } from '@app/persistence';
import { toMcpServerResponse } from './mcp-servers';

/** An agent's compaction setting as stored; a keep count left out is the default. */
export function toCompactionSettings(input: CompactionDto | null | undefined): CompactionSettings | null {
  if (!input) return null;
  return {
    thresholdTokens: input.threshold_tokens,
    keepRecentMessages: input.keep_recent_messages ?? DEFAULT_KEEP_RECENT_MESSAGES,
  };
}

/** An agent's guardrails as stored; null: none. */
export function toGuardrailSettings(input: GuardrailsDto | null | undefined): GuardrailSettings | null {
  if (!input) return null;
  return {
    pii: input.pii,
    blockedTerms: input.blocked_terms ?? [],
    moderationModel: input.moderation_model ?? null,
  };
}

export function toAgentResponse(agent: AgentEntity): AgentResponse {
  return {
    id: agent.id,
    organization_id: agent.orgId,
    name: agent.name,
    instructions: agent.instructions,
    description: agent.description,
    model: agent.model,
    memory_namespace: agent.memoryNamespace,
    token_budget: agent.tokenBudget,
    tokens_used: agent.tokensUsed,
    tools: agent.tools,
    mcp: agent.mcpServers.map(toMcpServerResponse),
    compaction: agent.compaction && {
      threshold_tokens: agent.compaction.thresholdTokens,
      keep_recent_messages: agent.compaction.keepRecentMessages,
    },
    approval_required: agent.approvalRequired,
    fallback_models: agent.fallbackModels,
    guardrails: agent.guardrails && {
      pii: agent.guardrails.pii,
      blocked_terms: agent.guardrails.blockedTerms,
      moderation_model: agent.guardrails.moderationModel,
    },
    temperature: agent.modelOptions.temperature ?? null,
    max_output_tokens: agent.modelOptions.maxOutputTokens ?? null,
    archived: agent.archivedAt !== null,
    created_at: agent.createdAt.toISOString(),
  };
}

/** Fields of an agent's response that say which agent it is and what it spent, not how it is configured. */
const NOT_CONFIGURATION: readonly (keyof AgentResponse)[] = [
  'id',
  'organization_id',
  'tokens_used',
  'archived',
  'created_at',
];

export function toAgentVersionResponse(version: AgentVersion): AgentVersionResponse {
  const config: Record<string, unknown> = { ...toAgentResponse(version.agent) };
  for (const field of NOT_CONFIGURATION) delete config[field];
  return {
    version: version.version,
    created_at: version.createdAt.toISOString(),
    actor: version.actor,
    restored_from: version.restoredFrom,
    config,
  };
}
