import { RunStepEntity, ToolCallEntity } from '@app/persistence';
import { AgentTool } from './tool';

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

/** The agent's instructions followed by what the offered tools add to the system prompt. */
export function instructionsWithTools(instructions: string, offered: AgentTool[]): string {
  return [instructions, ...offered.map((tool) => tool.systemPrompt).filter((text): text is string => !!text)]
    .filter(Boolean)
    .join('\n\n');
}
