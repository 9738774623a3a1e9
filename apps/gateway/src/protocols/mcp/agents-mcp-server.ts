import { Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { AtCapacityError } from '@app/contracts';
import { Caller } from '@app/identity';
import { loggable } from '../../http/http-error.filter';
import { AgentTools, ModelCallNotice, ReplyListener } from './agent-tools';
import { atCapacityRefusal, JsonRpcRefusal } from './json-rpc-errors';

/** How the server names itself to clients. */
const SERVER_INFO = { name: 'parley', version: '1.0.0' };

const logger = new Logger('McpServer');

/**
 * Runs a handler, turning an unexpected error into JSON-RPC's generic `Internal error`: the SDK would answer the
 * error's own message, and a database error's message holds PostgreSQL's words and the values of the row. What
 * the use cases refuse on purpose is already a tool result (AgentTools), but for a call refused by admission
 * control, a JSON-RPC error of its own. Logged as the HTTP filter logs a 500.
 */
async function withoutInternals<T>(caller: Caller, handle: () => Promise<T>): Promise<T> {
  try {
    return await handle();
  } catch (error) {
    if (error instanceof McpError || error instanceof JsonRpcRefusal) throw error;
    if (error instanceof AtCapacityError) throw atCapacityRefusal(error);
    logger.error({ ...loggable(error), requestId: caller.requestId }, 'MCP request failed');
    throw new McpError(ErrorCode.InternalError, 'Internal error');
  }
}

/**
 * A §24 line as MCP's log message (`notifications/message`): a fallback model answering is a warning, a guardrail
 * that blocked too, one that redacted a notice; `logger` names the line, `data` holds its fields.
 */
function logMessage(line: ModelCallNotice) {
  if (line.type === 'model.fallback') {
    const { step, from, to, reason } = line;
    return { level: 'warning', logger: 'parley.model_fallback', data: { step, from, to, reason } } as const;
  }
  const { stage, kind, action } = line;
  const level = action === 'blocked' ? 'warning' : 'notice';
  return { level, logger: 'parley.guardrail', data: { stage, kind, action } } as const;
}

/**
 * An MCP server for one request of one caller (the transport is stateless): `tools/list` and `tools/call` over
 * the caller's agents. A call sends `notifications/progress` per step when the client gave a `progressToken`,
 * and a log message (`notifications/message`) when another model answered a step or a guardrail acted (CONTRACTS
 * §24), which the tool's result lists too.
 */
export function agentsMcpServer(caller: Caller, tools: AgentTools): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, logging: {} },
    instructions:
      "Each tool asks one of the organization's agents; pass thread_id from an answer to continue its thread.",
  });
  server.setRequestHandler(ListToolsRequestSchema, () =>
    withoutInternals(caller, async () => ({ tools: await tools.list(caller) })),
  );
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    const listener: ReplyListener = {
      step: async (step) => {
        if (progressToken === undefined) return;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: step, message: `step ${step}` },
        });
      },
      notice: (line) => extra.sendNotification({ method: 'notifications/message', params: logMessage(line) }),
    };
    return withoutInternals(caller, () =>
      tools.call(caller, request.params.name, request.params.arguments ?? {}, listener, extra.signal),
    );
  });
  return server;
}
