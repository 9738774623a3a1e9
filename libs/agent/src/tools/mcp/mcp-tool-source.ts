import { Injectable, Logger } from '@nestjs/common';
import { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  AgentTool,
  MCP_PERMISSIONS,
  RunScope,
  ToolError,
  ToolParameters,
  ToolPolicy,
  ToolSource,
} from '../tool';
import { McpConnections } from './mcp-connections';
import { McpServerLaunch, McpServerLaunches } from './mcp-server-launch';
import { mcpToolName } from './mcp-tool-name';
import { ToolContentOutput, ToolContentPart, toolContentText } from '../tool-content';

/**
 * The tools of the agent's MCP servers (`mcp:<name>`): each server's tools under `<server>__<tool>`, with the
 * permission `mcp:<server>`, so an agent's `--tools` must name the server and a message's
 * `disabled_tools: ["mcp:<server>"]` removes all of its tools. A server that cannot be reached and was never
 * listed contributes no tools; the run goes on without them.
 */
@Injectable()
export class McpToolSource implements ToolSource {
  readonly permission = MCP_PERMISSIONS;
  private readonly logger = new Logger('McpToolSource');

  constructor(
    private readonly connections: McpConnections,
    private readonly launches: McpServerLaunches,
  ) {}

  async toolsFor(scope: RunScope, policy: ToolPolicy): Promise<AgentTool[]> {
    // Without a tool list an agent has no MCP server (CONTRACTS §1): none is even started.
    const servers = policy.mcpServers.filter((server) => policy.agentTools?.includes(`mcp:${server.name}`));
    const listed = await Promise.all(
      servers.map(async (stored) => {
        try {
          const server = await this.launches.launch(stored);
          const tools = await this.connections.tools(scope.orgId, server);
          return tools.map((tool) => this.toAgentTool(scope.orgId, server, tool));
        } catch (error) {
          this.logger.warn(
            `agent ${scope.agentId}: MCP server ${stored.name} offers no tools: ${String(error)}`,
          );
          return [];
        }
      }),
    );
    return listed.flat();
  }

  private toAgentTool(orgId: string, server: McpServerLaunch, tool: Tool): AgentTool {
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

/**
 * The result as the model sees it: its structured content, else its text; images come as tool content (image
 * parts for vision models, placeholders elsewhere). An error result becomes a ToolError.
 */
export function toolOutput(result: CallToolResult): unknown {
  const parts: ToolContentPart[] = result.content.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image') return { type: 'image', mediaType: part.mimeType, data: part.data };
    if (part.type === 'resource' && 'text' in part.resource)
      return { type: 'text', text: part.resource.text };
    if (part.type === 'resource_link') return { type: 'text', text: part.uri };
    return { type: 'text', text: `[${part.type} content omitted]` };
  });
  const content: ToolContentOutput = { type: 'tool-content', parts };
  if (result.isError) throw new ToolError(toolContentText(content) || 'the tool failed');
  if (result.structuredContent) return result.structuredContent;
  return parts.some((part) => part.type === 'image') ? content : toolContentText(content);
}
