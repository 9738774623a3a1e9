import { Injectable } from '@nestjs/common';
import { AgentTool, RunScope, ToolSource } from './tool';

/** What a run may use besides its scope: the agent's tool list and the user message's opt-outs. */
export interface ToolPolicy {
  /** The agent's `--tools` list; null: every tool the service has, but no MCP server (CONTRACTS §1). */
  agentTools: string[] | null;
  /** `disabled_tools` of the user message the reply answers. */
  disabledTools: string[] | null;
}

/**
 * Every capability registers its ToolSource here once (in its module's onModuleInit); a run is offered only
 * the tools it may use: `clock` always, `memory` tools only on a thread bound to a namespace, the rest as the
 * agent's list allows, minus the message's disabled_tools.
 */
@Injectable()
export class ToolRegistry {
  private readonly sources: ToolSource[] = [];

  register(source: ToolSource): void {
    this.sources.push(source);
  }

  async toolsFor(scope: RunScope, policy: ToolPolicy): Promise<AgentTool[]> {
    const disabled = new Set(policy.disabledTools ?? []);
    const offered = new Map<string, AgentTool>();
    for (const source of this.sources) {
      for (const tool of await source.toolsFor(scope)) {
        if (!offered.has(tool.name) && mayUse(tool.permission, scope, policy.agentTools, disabled)) {
          offered.set(tool.name, tool);
        }
      }
    }
    return [...offered.values()];
  }
}

function mayUse(
  permission: string,
  scope: RunScope,
  agentTools: string[] | null,
  disabled: Set<string>,
): boolean {
  if (permission === 'clock') return true;
  if (permission === 'memory') return scope.memoryNamespace !== null && !disabled.has('memory');
  if (disabled.has(permission)) return false;
  if (agentTools === null) return !permission.startsWith('mcp:');
  return agentTools.includes(permission);
}
