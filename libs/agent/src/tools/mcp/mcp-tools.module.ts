import { Module, OnModuleInit } from '@nestjs/common';
import { CredentialCipherModule } from '@app/persistence';
import { ToolRegistry } from '../tool-registry';
import { ToolRegistryModule } from '../tool-registry.module';
import { McpConnections } from './mcp-connections';
import { McpServerLaunches } from './mcp-server-launch';
import { McpToolSource } from './mcp-tool-source';

/** Registers the agents' MCP server tools with the (global) agent runtime's ToolRegistry. */
@Module({
  imports: [CredentialCipherModule, ToolRegistryModule],
  providers: [McpConnections, McpServerLaunches, McpToolSource],
})
export class McpToolsModule implements OnModuleInit {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly source: McpToolSource,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.source);
  }
}
