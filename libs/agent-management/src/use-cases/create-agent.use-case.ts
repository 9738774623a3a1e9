import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AgentResponse, AuditActor, CreateAgentDto } from '@app/contracts';
import { AgentRepository, AgentVersionRepository, recordAudit } from '@app/persistence';
import { toAgentResponse, toCompactionSettings, toGuardrailSettings } from '../agent.mapper';
import { McpServers } from '../mcp-servers';

/** POST /agents and `agents:create`: the agent and its version 1 (CONTRACTS §23). */
@Injectable()
export class CreateAgent {
  constructor(
    private readonly db: DataSource,
    private readonly agents: AgentRepository,
    private readonly versions: AgentVersionRepository,
    private readonly mcpServers: McpServers,
  ) {}

  async execute(actor: AuditActor, orgId: string, input: CreateAgentDto): Promise<AgentResponse> {
    const mcpServers = await this.mcpServers.seal(input.mcp ?? []);
    const agent = await this.db.transaction(async (tx) => {
      const agent = await this.agents.create(
        {
          orgId,
          name: input.name,
          instructions: input.instructions ?? '',
          description: input.description ?? '',
          model: input.model ?? 'builtin',
          fallbackModels: input.fallback_models ?? [],
          guardrails: toGuardrailSettings(input.guardrails),
          modelOptions: {
            ...(input.temperature != null && { temperature: input.temperature }),
            ...(input.max_output_tokens != null && { maxOutputTokens: input.max_output_tokens }),
          },
          memoryNamespace: input.memory_namespace ?? null,
          tokenBudget: input.token_budget ?? null,
          tools: input.tools ?? null,
          approvalRequired: input.approval_required ?? [],
          compaction: toCompactionSettings(input.compaction),
          mcpServers,
        },
        tx,
      );
      const version = await this.versions.record(tx, { orgId }, agent.id, actor);
      await recordAudit(tx, {
        orgId,
        actor,
        action: 'agent.created',
        target: { type: 'agent', id: agent.id },
        details: { name: agent.name, model: agent.model, version },
      });
      return agent;
    });
    return toAgentResponse(agent);
  }
}
