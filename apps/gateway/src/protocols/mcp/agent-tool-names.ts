/** Longest tool name MCP clients accept. */
export const TOOL_NAME_MAX_CHARS = 64;
export interface NamedAgent {
  id: string;
  name: string;
  /** What the operator wrote for the agent's callers; never its instructions, which a browser must not read. */
  description: string;
}

/**
 * The tool name of each agent (CONTRACTS §18): its name in lower case, every run of characters outside
 * `[a-z0-9_-]` made `_`, cut to 64; on a clash `_2`, `_3`… in the order given (creation order), the name cut so
 * the suffix fits.
 */
export function agentToolNames<T extends NamedAgent>(agents: readonly T[]): Map<string, T> {
  const tools = new Map<string, T>();
  for (const agent of agents) {
    const base = agent.name
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '_')
      .slice(0, TOOL_NAME_MAX_CHARS);
    let name = base;
    for (let suffix = 2; tools.has(name); suffix++) {
      name = `${base.slice(0, TOOL_NAME_MAX_CHARS - `_${suffix}`.length)}_${suffix}`;
    }
    tools.set(name, agent);
  }
  return tools;
}

/** "Ask the agent <name>." and the agent's description (issue 46: never its instructions). */
export function agentToolDescription(agent: NamedAgent): string {
  return agent.description
    ? `Ask the agent ${agent.name}. ${agent.description}`
    : `Ask the agent ${agent.name}.`;
}
