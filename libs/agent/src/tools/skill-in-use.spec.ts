import { RunStepEntity, ToolCallEntity } from '@app/persistence';
import { instructionsWithTools, toolsWhileSkillInUse } from './skill-in-use';
import { AgentTool } from './tool';

const tool = (name: string, permission = name, systemPrompt?: string): AgentTool => ({
  name,
  permission,
  description: name,
  parameters: { type: 'object', properties: {} },
  systemPrompt,
  execute: async () => null,
});
const available = [tool('clock'), tool('web'), tool('skill_read'), tool('github__search', 'mcp:github')];
const key = (step: number, callId: string) => `m:${step}:${callId}`;
const step = (number: number, calls: string[]) =>
  Object.assign(new RunStepEntity(), {
    step: number,
    toolCalls: calls.map((name, i) => ({ callId: `c${i}`, name, arguments: {} })),
  });
const result = (number: number, callId: string, output: unknown, isError = false) =>
  [key(number, callId), Object.assign(new ToolCallEntity(), { output, isError })] as [string, ToolCallEntity];

describe('toolsWhileSkillInUse', () => {
  it('offers every available tool while no skill is in use', () => {
    expect(toolsWhileSkillInUse(available, [step(1, ['clock'])], new Map(), key)).toBe(available);
  });

  it('limits the tools to the allowed_tools of the skill read last, by name or permission', () => {
    const results = new Map([result(1, 'c0', { name: 'a', allowed_tools: ['clock', 'mcp:github'] })]);
    const offered = toolsWhileSkillInUse(available, [step(1, ['skill_read'])], results, key);
    expect(offered.map((t) => t.name)).toEqual(['clock', 'skill_read', 'github__search']);
  });

  it('ignores a failed skill_read and a skill without allowed_tools', () => {
    const failed = new Map([result(1, 'c0', 'skill "x" is not available', true)]);
    expect(toolsWhileSkillInUse(available, [step(1, ['skill_read'])], failed, key)).toBe(available);
    const unrestricted = new Map([result(1, 'c0', { name: 'b', allowed_tools: null })]);
    expect(toolsWhileSkillInUse(available, [step(1, ['skill_read'])], unrestricted, key)).toBe(available);
  });

  it('follows the latest skill read', () => {
    const results = new Map([
      result(1, 'c0', { name: 'a', allowed_tools: ['web'] }),
      result(2, 'c0', { name: 'b', allowed_tools: ['clock'] }),
    ]);
    const offered = toolsWhileSkillInUse(
      available,
      [step(1, ['skill_read']), step(2, ['skill_read'])],
      results,
      key,
    );
    expect(offered.map((t) => t.name)).toEqual(['clock', 'skill_read']);
  });
});

describe('instructionsWithTools', () => {
  it('appends what offered tools add to the system prompt', () => {
    expect(
      instructionsWithTools('Be kind.', [tool('clock'), tool('skill_read', 'skill_read', 'Skills: a')]),
    ).toBe('Be kind.\n\nSkills: a');
    expect(instructionsWithTools('', [tool('clock')])).toBe('');
  });
});
