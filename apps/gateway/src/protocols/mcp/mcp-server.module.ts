import { Module } from '@nestjs/common';
import { ProtocolRepliesModule } from '../protocol-replies.module';
import { AgentTools } from './agent-tools';
import { McpController } from './mcp.controller';

/** The organization's agents as an MCP server at /mcp (CONTRACTS §18). */
@Module({
  imports: [ProtocolRepliesModule],
  controllers: [McpController],
  providers: [AgentTools],
})
export class McpServerModule {}
