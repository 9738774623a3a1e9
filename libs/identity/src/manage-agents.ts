import { Injectable } from '@nestjs/common';
import { InvalidInputError, NotFoundError, ValidationIssue } from '@app/contracts';
import {
  AgentEntity,
  AgentRepository,
  McpServerConfig,
  ModelOptions,
  OrganizationRepository,
} from '@app/persistence';

export interface CreateAgentInput {
  org: string;
  name: string;
  instructions?: string;
  model?: string;
  memoryNamespace?: string | null;
  tokenBudget?: number | null;
  tools?: string[] | null;
  mcpServers?: McpServerConfig[];
  modelOptions?: ModelOptions;
}

/** An agent as the admin CLI prints it. */
export interface AgentView {
  id: string;
  org_id: string;
  name: string;
  instructions: string;
  model: string;
  model_options: ModelOptions;
  memory_namespace: string | null;
  token_budget: number | null;
  tokens_used: number;
  tools: string[] | null;
  mcp_servers: { name: string; command?: string; args?: string[]; url?: string; header_names?: string[] }[];
  archived: boolean;
  created_at: string;
}

/** Model ids an agent may name (CONTRACTS §1). */
export const MODEL_PATTERN = /^(builtin|openai:[^\s]+|anthropic:[^\s]+)$/;
/** Tool names an agent's list may hold. Memory tools come with a thread's namespace, not from the list. */
export const TOOL_PATTERN = /^(clock|web|company_documents|skill_read|mcp:[A-Za-z0-9_-]{1,40})$/;
export const MCP_NAME_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;

/** Creating, archiving and listing agents: the admin CLI's `agents:*` commands. */
@Injectable()
export class ManageAgents {
  constructor(
    private readonly organizations: OrganizationRepository,
    private readonly agents: AgentRepository,
  ) {}

  async create(input: CreateAgentInput): Promise<AgentView> {
    const issues = validateAgent(input);
    if (issues.length > 0) throw new InvalidInputError(issues);
    const org = await this.organizations.findOrCreateByName(input.org);
    const agent = await this.agents.create({
      orgId: org.id,
      name: input.name,
      instructions: input.instructions ?? '',
      model: input.model ?? 'builtin',
      modelOptions: input.modelOptions ?? {},
      memoryNamespace: input.memoryNamespace ?? null,
      tokenBudget: input.tokenBudget ?? null,
      tools: input.tools ?? null,
      mcpServers: input.mcpServers ?? [],
    });
    return toAgentView(agent);
  }

  async archive(id: string): Promise<{ id: string; archived: true }> {
    const agent = await this.agents.archive(id);
    if (!agent) throw new NotFoundError('Agent not found');
    return { id: agent.id, archived: true };
  }

  async list(orgName: string): Promise<{ agents: AgentView[] }> {
    const org = await this.organizations.findOrCreateByName(orgName);
    return { agents: (await this.agents.listByOrg(org.id)).map(toAgentView) };
  }
}

function validateAgent(input: CreateAgentInput): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const fail = (field: string, msg: string) => issues.push({ loc: [field], msg, type: 'value_error' });
  if (!input.org) fail('org', 'is required');
  if (!input.name || input.name.length > 200) fail('name', 'must be 1-200 characters');
  if (input.model !== undefined && !MODEL_PATTERN.test(input.model)) {
    fail('model', 'must be builtin, openai:<model> or anthropic:<model>');
  }
  if (
    input.memoryNamespace != null &&
    (input.memoryNamespace.length === 0 || input.memoryNamespace.length > 128)
  ) {
    fail('memory-namespace', 'must be 1-128 characters');
  }
  if (input.tokenBudget != null && (!Number.isInteger(input.tokenBudget) || input.tokenBudget < 0)) {
    fail('token-budget', 'must be a whole number, 0 or more');
  }
  for (const tool of input.tools ?? []) {
    if (!TOOL_PATTERN.test(tool)) fail('tools', `unknown tool ${JSON.stringify(tool)}`);
  }
  for (const server of input.mcpServers ?? []) {
    if (!MCP_NAME_PATTERN.test(server.name)) fail('mcp', `bad server name ${JSON.stringify(server.name)}`);
    if (!server.command === !server.url)
      fail('mcp', `server ${server.name} needs exactly one of command or url`);
  }
  const { temperature, maxOutputTokens } = input.modelOptions ?? {};
  if (temperature !== undefined && !(temperature >= 0 && temperature <= 2))
    fail('temperature', 'must be 0-2');
  if (maxOutputTokens !== undefined && !(Number.isInteger(maxOutputTokens) && maxOutputTokens > 0)) {
    fail('max-output-tokens', 'must be a positive whole number');
  }
  return issues;
}

/** Never prints MCP header values: they usually hold credentials. */
export function toAgentView(agent: AgentEntity): AgentView {
  return {
    id: agent.id,
    org_id: agent.orgId,
    name: agent.name,
    instructions: agent.instructions,
    model: agent.model,
    model_options: agent.modelOptions,
    memory_namespace: agent.memoryNamespace,
    token_budget: agent.tokenBudget,
    tokens_used: agent.tokensUsed,
    tools: agent.tools,
    mcp_servers: agent.mcpServers.map((server) => ({
      name: server.name,
      command: server.command,
      args: server.args,
      url: server.url,
      header_names: server.headers ? Object.keys(server.headers) : undefined,
    })),
    archived: agent.archivedAt !== null,
    created_at: agent.createdAt.toISOString(),
  };
}
