import { Injectable, Logger } from '@nestjs/common';
import { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpServerConfig } from '@app/persistence';
import { AgentTool, RunScope, ToolError, ToolParameters, ToolPolicy, ToolSource } from '../tool';
import { McpConnections } from './mcp-connections';
import { mcpToolName } from './mcp-tool-name';

/**
 * The tools of the agent's MCP servers (`mcp:<name>`): each server's tools under `<server>__<tool>`, with the
 * permission `mcp:<server>`, so an agent's `--tools` must name the server and a message's
 * `disabled_tools: ["mcp:<server>"]` removes all of its tools. A server that cannot be reached and was never
 * listed contributes no tools; the run goes on without them.
 */
@Injectable()
export class McpToolSource implements ToolSource {
  private readonly logger = new Logger('McpToolSource');

  constructor(private readonly connections: McpConnections) {}

  async toolsFor(scope: RunScope, policy: ToolPolicy): Promise<AgentTool[]> {
    // Without a tool list an agent has no MCP server (CONTRACTS §1): none is even started.
    const servers = policy.mcpServers.filter((server) => policy.agentTools?.includes(`mcp:${server.name}`));
    const listed = await Promise.all(
      servers.map(async (server) => {
        try {
          const tools = await this.connections.tools(scope.orgId, server);
          return tools.map((tool) => this.toAgentTool(scope.orgId, server, tool));
        } catch (error) {
          this.logger.warn(
            `agent ${scope.agentId}: MCP server ${server.name} offers no tools: ${String(error)}`,
          );
          return [];
        }
      }),
    );
    return listed.flat();
  }

  private toAgentTool(orgId: string, server: McpServerConfig, tool: Tool): AgentTool {
    return {
      name: mcpToolName(server.name, tool.name),
      permission: `mcp:${server.name}`,
      description:
        tool.description ?? tool.title ?? `The tool ${tool.name} of the MCP server ${server.name}.`,
      parameters: { ...tool.inputSchema, properties: tool.inputSchema.properties ?? {} } as ToolParameters,
      execute: async (args, context) =>
        toolOutput(await this.connections.call(orgId, server, tool.name, args, context.signal)),
    };
  }
}

/** The result as the model sees it: its structured content, else its text; an error result becomes a ToolError. */
export function toolOutput(result: CallToolResult): unknown {
  const text = result.content
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'resource' && 'text' in part.resource) return part.resource.text;
      if (part.type === 'resource_link') return part.uri;
      return `[${part.type} content omitted]`;
    })
    .join('\n');
  if (result.isError) throw new ToolError(text || 'the tool failed');
  return result.structuredContent ?? text;
}
