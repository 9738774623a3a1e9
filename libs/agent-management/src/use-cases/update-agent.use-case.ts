import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AgentResponse, AuditActor, InvalidInputError, NotFoundError, UpdateAgentDto } from '@app/contracts';
import { AgentChanges, AgentRepository, AgentVersionRepository, recordAudit } from '@app/persistence';
import { toAgentResponse, toCompactionSettings, toGuardrailSettings } from '../agent.mapper';
import { McpServers } from '../mcp-servers';

/**
 * PUT /agents/{id} and `agents:update`: a partial update. A field left out keeps its value; `null` clears
 * `memory_namespace`, `token_budget`, `tools`, `approval_required`, `compaction`, `guardrails`, `temperature` and `max_output_tokens`; `mcp` replaces the whole
 * list, secrets included (they cannot be read back, so they are sent again). A change stores the agent's next
 * version (CONTRACTS §23); a request that changes nothing stores none.
 */
@Injectable()
export class UpdateAgent {
  constructor(
    private readonly db: DataSource,
    private readonly agents: AgentRepository,
    private readonly versions: AgentVersionRepository,
    private readonly mcpServers: McpServers,
  ) {}

  async execute(actor: AuditActor, orgId: string, id: string, input: UpdateAgentDto): Promise<AgentResponse> {
    const current = await this.agents.findActive(orgId, id);
    if (!current) throw new NotFoundError('Agent not found');
    for (const field of ['name', 'instructions', 'description', 'model', 'mcp', 'fallback_models'] as const) {
      if (input[field] === null) {
        throw new InvalidInputError([
          { loc: ['body', field], msg: 'Input should not be null', type: 'value_error', input: null },
        ]);
      }
    }
    const changes: AgentChanges = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.instructions !== undefined) changes.instructions = input.instructions;
    if (input.description !== undefined) changes.description = input.description;
    if (input.model !== undefined) changes.model = input.model;
    if (input.fallback_models !== undefined) changes.fallbackModels = input.fallback_models;
    if (input.guardrails !== undefined) changes.guardrails = toGuardrailSettings(input.guardrails);
    if (input.memory_namespace !== undefined) changes.memoryNamespace = input.memory_namespace;
    if (input.token_budget !== undefined) changes.tokenBudget = input.token_budget;
    if (input.tools !== undefined) changes.tools = input.tools;
    if (input.approval_required !== undefined) changes.approvalRequired = input.approval_required;
    if (input.compaction !== undefined) changes.compaction = toCompactionSettings(input.compaction);
    if (input.mcp !== undefined) changes.mcpServers = await this.mcpServers.seal(input.mcp);
    if (input.temperature !== undefined || input.max_output_tokens !== undefined) {
      const options = { ...current.modelOptions };
      if (input.temperature !== undefined) options.temperature = input.temperature ?? undefined;
      if (input.max_output_tokens !== undefined)
        options.maxOutputTokens = input.max_output_tokens ?? undefined;
      changes.modelOptions = JSON.parse(JSON.stringify(options)) as typeof options;
    }
    if (Object.keys(changes).length === 0) return toAgentResponse(current);
    const updated = await this.db.transaction(async (tx) => {
      const updated = await this.agents.update(orgId, id, changes, tx);
      if (!updated) throw new NotFoundError('Agent not found');
      const version = await this.versions.record(tx, { orgId }, id, actor);
      // The names of the fields sent, not their values: `mcp` holds write-only secrets.
      const fields = Object.keys(input).filter((field) => input[field as keyof UpdateAgentDto] !== undefined);
      await recordAudit(tx, {
        orgId,
        actor,
        action: 'agent.updated',
        target: { type: 'agent', id },
        details: { fields, version },
      });
      return updated;
    });
    return toAgentResponse(updated);
  }
}
