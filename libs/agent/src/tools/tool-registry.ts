import { Injectable } from '@nestjs/common';
import { AgentTool, RunScope, ToolPolicy, ToolSource } from './tool';

/**
 * Every capability registers its ToolSource here once (in its module's onModuleInit); a run is offered only
 * the tools it may use: `clock` always, the rest as the agent's list allows (`memory` tools, besides, only on a
 * thread bound to a namespace), minus the message's disabled_tools.
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
    // Sources are asked at once; the first source to name a tool wins, in registration order.
    const listed = await Promise.all(this.sources.map((source) => source.toolsFor(scope, policy)));
    for (const tools of listed) {
      for (const tool of tools) {
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
  if (permission === 'memory' && scope.memoryNamespace === null) return false;
  if (disabled.has(permission)) return false;
  if (agentTools === null) return !permission.startsWith('mcp:');
  return agentTools.includes(permission);
}
