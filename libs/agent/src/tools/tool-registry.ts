import { Injectable } from '@nestjs/common';
import { RunStepEntity, ToolCallEntity } from '@app/persistence';
import { AgentTool, FixedTools, MCP_PERMISSIONS, RunScope, ToolPolicy, ToolSource } from './tool';

/**
 * Every capability registers its tools here once (in its module's onModuleInit): those the same for every run
 * as FixedTools, the others as a ToolSource. A run is offered only the tools it may use: `clock` always, the rest
 * as the agent's list allows (`memory` tools, besides, only on a thread bound to a namespace), minus the
 * message's disabled_tools. A source is asked only when the run may use its permission: a run whose agent may
 * use no MCP server launches none, one without memory or skill_read reads no memory or skill. Each step is then
 * offered the run's tools, or fewer while a skill is in use (toolsWhileSkillInUse).
 */
@Injectable()
export class ToolRegistry {
  private readonly sources: (ToolSource | FixedTools)[] = [];

  register(source: ToolSource | FixedTools): void {
    this.sources.push(source);
  }

  async toolsFor(scope: RunScope, policy: ToolPolicy): Promise<AgentTool[]> {
    const disabled = new Set(policy.disabledTools ?? []);
    const may = (permission: string) => mayUse(permission, scope, policy.agentTools, disabled);
    const offered = new Map<string, AgentTool>();
    // Sources are asked at once; the first source to name a tool wins, in registration order.
    const listed = await Promise.all(
      this.sources.map((source) => {
        if (!mayUseAny(source.permission, policy.agentTools, may)) return [];
        return 'tools' in source ? source.tools : source.toolsFor(scope, policy);
      }),
    );
    for (const tools of listed) {
      for (const tool of tools) {
        if (!offered.has(tool.name) && may(tool.permission)) offered.set(tool.name, tool);
      }
    }
    return [...offered.values()];
  }
}

/** Whether the run may use the permission, or, for MCP_PERMISSIONS, the permission of any server its agent lists. */
function mayUseAny(
  permission: string,
  agentTools: string[] | null,
  may: (permission: string) => boolean,
): boolean {
  if (permission !== MCP_PERMISSIONS) return may(permission);
  return (agentTools ?? []).some((listed) => listed.startsWith(MCP_PERMISSIONS) && may(listed));
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

/** What `skill_read` answers (libs/skills): the skill's name, instructions and allowed tools. */
interface SkillReadOutput {
  name?: string;
  allowed_tools?: string[] | null;
}

/**
 * The tools a step may be offered. While a skill with `allowed_tools` is in use (the latest skill the run read
 * successfully), only those tools are offered, named by tool name or by permission, plus `skill_read` so the
 * model can switch to another skill.
 */
export function toolsWhileSkillInUse(
  available: AgentTool[],
  steps: RunStepEntity[],
  results: Map<string, ToolCallEntity>,
  keyOf: (step: number, callId: string) => string,
): AgentTool[] {
  for (let s = steps.length - 1; s >= 0; s--) {
    const calls = steps[s].toolCalls;
    for (let c = calls.length - 1; c >= 0; c--) {
      if (calls[c].name !== 'skill_read') continue;
      const result = results.get(keyOf(steps[s].step, calls[c].callId));
      if (!result || result.isError) continue;
      const allowed = (result.output as SkillReadOutput | null)?.allowed_tools;
      if (!Array.isArray(allowed)) return available;
      return available.filter(
        (tool) =>
          tool.name === 'skill_read' || allowed.includes(tool.name) || allowed.includes(tool.permission),
      );
    }
  }
  return available;
}
