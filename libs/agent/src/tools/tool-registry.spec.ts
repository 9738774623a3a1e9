import { RunStepEntity, ToolCallEntity } from '@app/persistence';
import { clockToolSource } from './clock.tool';
import { AgentTool, MCP_PERMISSIONS, RunScope, ToolSource } from './tool';
import { ToolRegistry, toolsWhileSkillInUse } from './tool-registry';

const tool = (name: string, permission: string): AgentTool => ({
  name,
  permission,
  description: name,
  parameters: { type: 'object', properties: {} },
  execute: async () => name,
});

const scope = (memoryNamespace: string | null): RunScope => ({
  orgId: 'o',
  userId: null,
  agentId: 'a',
  threadId: 't',
  messageId: 'm',
  memoryNamespace,
  sourceIds: null,
  documentIds: null,
});

/** A source of one permission's tools that counts the runs it was asked for. */
const source = (permission: string, ...tools: AgentTool[]): ToolSource & { asked: number } => ({
  permission,
  asked: 0,
  toolsFor() {
    this.asked += 1;
    return tools;
  },
});

describe('ToolRegistry', () => {
  const registry = new ToolRegistry();
  const memory = source('memory', tool('memory_read', 'memory'));
  const mcp = source(
    MCP_PERMISSIONS,
    tool('github__issues', 'mcp:github'),
    tool('jira__tickets', 'mcp:jira'),
  );
  registry.register(clockToolSource);
  registry.register(memory);
  registry.register({ permission: 'web', tools: [tool('web', 'web')] });
  registry.register({
    permission: 'company_documents',
    tools: [tool('company_documents', 'company_documents')],
  });
  registry.register(mcp);
  const names = async (
    namespace: string | null,
    agentTools: string[] | null,
    disabledTools: string[] | null,
  ) =>
    (await registry.toolsFor(scope(namespace), { agentTools, mcpServers: [], disabledTools })).map(
      (t) => t.name,
    );

  beforeEach(() => {
    memory.asked = 0;
    mcp.asked = 0;
  });

  it('offers every non-MCP tool to an agent without a list, memory only with a namespace', async () => {
    expect(await names(null, null, null)).toEqual(['clock', 'web', 'company_documents']);
    expect(await names('ns', null, null)).toEqual(['clock', 'memory_read', 'web', 'company_documents']);
  });

  it("follows the agent's list and the message's disabled_tools, and always keeps clock", async () => {
    expect(await names(null, ['web', 'mcp:github'], null)).toEqual(['clock', 'web', 'github__issues']);
    expect(await names(null, ['web', 'mcp:github'], ['mcp:github', 'web'])).toEqual(['clock']);
    expect(await names(null, [], ['clock'])).toEqual(['clock']);
  });

  it("offers memory tools only when the agent's list names memory too (CONTRACTS §21)", async () => {
    expect(await names('ns', ['web'], null)).toEqual(['clock', 'web']);
    expect(await names('ns', ['memory'], null)).toEqual(['clock', 'memory_read']);
    expect(await names(null, ['memory'], null)).toEqual(['clock']);
    expect(await names('ns', null, ['memory'])).toEqual(['clock', 'web', 'company_documents']);
  });

  it('asks a source only for a run that may use its permission', async () => {
    await names(null, null, null);
    await names('ns', ['web'], null);
    await names('ns', null, ['memory']);
    await names(null, ['mcp:github'], ['mcp:github']);
    expect(memory.asked).toBe(0);
    expect(mcp.asked).toBe(0);

    await names('ns', null, null);
    expect(memory.asked).toBe(1);
    // Any server the list names and the message leaves on: the source is asked, each tool still filtered.
    expect(await names(null, ['mcp:github', 'mcp:jira'], ['mcp:github'])).toEqual(['clock', 'jira__tickets']);
    expect(mcp.asked).toBe(1);
  });
});

describe('toolsWhileSkillInUse', () => {
  const available = [
    tool('clock', 'clock'),
    tool('web', 'web'),
    tool('skill_read', 'skill_read'),
    tool('github__search', 'mcp:github'),
  ];
  const key = (step: number, callId: string) => `m:${step}:${callId}`;
  const step = (number: number, calls: string[]) =>
    Object.assign(new RunStepEntity(), {
      step: number,
      toolCalls: calls.map((name, i) => ({ callId: `c${i}`, name, arguments: {} })),
    });
  const result = (number: number, callId: string, output: unknown, isError = false) =>
    [key(number, callId), Object.assign(new ToolCallEntity(), { output, isError })] as [
      string,
      ToolCallEntity,
    ];

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
