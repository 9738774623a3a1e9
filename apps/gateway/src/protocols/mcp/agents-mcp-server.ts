import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Caller } from '@app/identity';
import { AgentTools } from './agent-tools';

/** How the server names itself to clients. */
const SERVER_INFO = { name: 'parley', version: '1.0.0' };

/**
 * An MCP server for one request of one caller (the transport is stateless): `tools/list` and `tools/call` over
 * the caller's agents. A call sends `notifications/progress` per step when the client gave a `progressToken`.
 */
export function agentsMcpServer(caller: Caller, tools: AgentTools): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      "Each tool asks one of the organization's agents; pass thread_id from an answer to continue its thread.",
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await tools.list(caller) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    const onStep = async (step: number) => {
      if (progressToken === undefined) return;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: step, message: `step ${step}` },
      });
    };
    return tools.call(caller, request.params.name, request.params.arguments ?? {}, onStep, extra.signal);
  });
  return server;
}
