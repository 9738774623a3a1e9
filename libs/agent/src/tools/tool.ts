import type { McpServerConfig } from '@app/persistence';

/**
 * What a tool is to the runtime. Each capability (clock, memory, company documents, skills, web, MCP) supplies
 * its tools through a ToolSource (FixedTools when they are the same for every run) registered with the
 * ToolRegistry; the registry offers a run only the tools it may use (the agent's tool list, minus the message's
 * disabled_tools, memory only with a namespace).
 */
export interface RunScope {
  orgId: string;
  /** End user owning the thread, when the thread has one. */
  userId: string | null;
  agentId: string;
  threadId: string;
  messageId: string;
  /** Namespace the thread is bound to (spec 4.2 rules 1-3); null: no memory tools. */
  memoryNamespace: string | null;
  /** Limits company_documents to these, when the user message gave them. */
  sourceIds: number[] | null;
  documentIds: string[] | null;
}

export interface ToolCallContext extends RunScope {
  /** `message_id:step:call_id`: the same call resumed after a crash carries the same key. */
  idempotencyKey: string;
  step: number;
  callId: string;
  /** Aborted when the run is cancelled or its worker shuts down. */
  signal: AbortSignal;
}

/** JSON Schema of a tool's arguments (an object schema). */
export type ToolParameters = {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
};

export interface AgentTool {
  /** Name the model calls it by: letters, digits, `_` and `-` only (what vendors accept). */
  name: string;
  /**
   * The permission it falls under, as an agent's `--tools` list and a message's `disabled_tools` spell it:
   * `clock`, `web`, `company_documents`, `skill_read`, `memory`, or `mcp:<server>`.
   */
  permission: string;
  description: string;
  parameters: ToolParameters;
  /**
   * Only reads: a call changes nothing outside the run. The runtime then skips confirming that the run still
   * owns its reply before calling it (a stale run's extra call is harmless); any other tool waits for that.
   */
  readOnly?: boolean;
  /** Text this tool adds to the run's system prompt while it is offered (e.g. the list of skills). */
  systemPrompt?: string;
  /** Returns the output given to the model (JSON-serialisable); throws ToolError for an error result. */
  execute(args: Record<string, unknown>, context: ToolCallContext): Promise<unknown>;
}

/** A tool failure the model should see as an error result (`is_error: true`), not a failed run. */
export class ToolError extends Error {}

/** What a run may use besides its scope: the agent's tool list and MCP servers, the user message's opt-outs. */
export interface ToolPolicy {
  /** The agent's `--tools` list; null: every tool the service has, but no MCP server (CONTRACTS §1). */
  agentTools: string[] | null;
  /** The agent's MCP servers (used only when its tool list names them). */
  mcpServers: McpServerConfig[];
  /** `disabled_tools` of the user message the reply answers. */
  disabledTools: string[] | null;
}

/**
 * Supplies the tools of one capability for a run (they may depend on the run: its namespace, its agent's MCP
 * servers, the skills its end user sees). Each of its tools falls under its `permission`; the registry asks it
 * only when the run may use that permission.
 */
export interface ToolSource {
  /** The permission of all its tools; `mcp:` stands for every `mcp:<server>` (MCP_PERMISSIONS). */
  readonly permission: string;
  toolsFor(scope: RunScope, policy: ToolPolicy): Promise<AgentTool[]> | AgentTool[];
}

/** The tools of one capability that are the same for every run, built once: offered without asking anything. */
export interface FixedTools {
  /** The permission of all its tools. */
  readonly permission: string;
  readonly tools: readonly AgentTool[];
}

/** The permission of a source of MCP tools: each of its tools falls under `mcp:<server>`. */
export const MCP_PERMISSIONS = 'mcp:';
