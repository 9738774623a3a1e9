import { clockToolSource } from './clock.tool';
import { AgentTool, RunScope } from './tool';
import { ToolRegistry } from './tool-registry';

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

describe('ToolRegistry', () => {
  const registry = new ToolRegistry();
  registry.register(clockToolSource);
  registry.register({
    toolsFor: () => [
      tool('memory_read', 'memory'),
      tool('web_search', 'web'),
      tool('company_documents', 'company_documents'),
      tool('github_issues', 'mcp:github'),
    ],
  });
  const names = async (
    namespace: string | null,
    agentTools: string[] | null,
    disabledTools: string[] | null,
  ) =>
    (await registry.toolsFor(scope(namespace), { agentTools, mcpServers: [], disabledTools })).map(
      (t) => t.name,
    );

  it('offers every non-MCP tool to an agent without a list, memory only with a namespace', async () => {
    expect(await names(null, null, null)).toEqual(['clock', 'web_search', 'company_documents']);
    expect(await names('ns', null, null)).toEqual([
      'clock',
      'memory_read',
      'web_search',
      'company_documents',
    ]);
  });

  it("follows the agent's list and the message's disabled_tools, and always keeps clock", async () => {
    expect(await names(null, ['web', 'mcp:github'], null)).toEqual(['clock', 'web_search', 'github_issues']);
    expect(await names(null, ['web', 'mcp:github'], ['mcp:github', 'web'])).toEqual(['clock']);
    expect(await names(null, [], ['clock'])).toEqual(['clock']);
  });

  it("offers memory tools only when the agent's list names memory too (CONTRACTS §21)", async () => {
    expect(await names('ns', ['web'], null)).toEqual(['clock', 'web_search']);
    expect(await names('ns', ['memory'], null)).toEqual(['clock', 'memory_read']);
    expect(await names(null, ['memory'], null)).toEqual(['clock']);
    expect(await names('ns', null, ['memory'])).toEqual(['clock', 'web_search', 'company_documents']);
  });
});
