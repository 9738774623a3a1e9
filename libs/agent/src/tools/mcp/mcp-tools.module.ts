import { Module, OnModuleInit } from '@nestjs/common';
import { ToolRegistry } from '../tool-registry';
import { McpConnections } from './mcp-connections';
import { McpToolSource } from './mcp-tool-source';

/** Registers the agents' MCP server tools with the (global) agent runtime's ToolRegistry. */
@Module({ providers: [McpConnections, McpToolSource] })
export class McpToolsModule implements OnModuleInit {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly source: McpToolSource,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.source);
  }
}
