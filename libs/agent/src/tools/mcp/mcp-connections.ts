import { createHash } from 'node:crypto';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResult, ErrorCode, McpError, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Settings } from '@app/config';
import { egressFetch } from '@app/egress';
import { ToolError } from '../tool';
import { McpServerLaunch } from './mcp-server-launch';

/** Pages of tools/list read at most: a server listing more is cut off there. */
const MAX_LIST_PAGES = 20;

interface Connection {
  client: Client;
  tools: Tool[];
  lastUsed: number;
}

/**
 * The MCP connections of this worker process, one per organization and server configuration, opened on first
 * use, reused by every later run, dropped when broken (the next use reconnects), closed when idle and on
 * shutdown. A server's last tool list is remembered, so a server that goes down still has its tools offered and
 * their calls answer with an error the model can read.
 */
@Injectable()
export class McpConnections implements OnApplicationShutdown {
  private readonly logger = new Logger('McpConnections');
  private readonly open = new Map<string, Promise<Connection>>();
  private readonly lastTools = new Map<string, Tool[]>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly settings: Settings) {
    this.sweeper = setInterval(() => void this.closeIdle(), Math.min(settings.mcpIdleCloseMs, 60000));
    this.sweeper.unref();
  }

  /** The server's tools; a server that cannot be reached gives its last known list, or throws when it has none. */
  async tools(orgId: string, server: McpServerLaunch): Promise<Tool[]> {
    const key = connectionKey(orgId, server);
    try {
      return (await this.connection(key, server)).tools;
    } catch (error) {
      const known = this.lastTools.get(key);
      if (known) return known;
      throw error;
    }
  }

  /** Calls one tool; every failure becomes a ToolError naming the server. */
  async call(
    orgId: string,
    server: McpServerLaunch,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const key = connectionKey(orgId, server);
    let connection: Connection;
    try {
      connection = await this.connection(key, server);
    } catch (error) {
      throw new ToolError(`MCP server ${server.name} is unavailable: ${describe(error)}`);
    }
    try {
      return (await connection.client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: this.settings.mcpCallTimeoutMs,
      })) as CallToolResult;
    } catch (error) {
      // An error the server answered leaves the connection usable; anything else (a dead process, a refused
      // connection, a closed session) drops it so the next use reconnects.
      if (!(error instanceof McpError) || error.code === ErrorCode.ConnectionClosed) {
        await this.drop(key, connection);
      }
      throw new ToolError(`MCP server ${server.name}: ${describe(error)}`);
    } finally {
      connection.lastUsed = Date.now();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    const pending = [...this.open.values()];
    this.open.clear();
    await Promise.allSettled(pending.map(async (connection) => (await connection).client.close()));
  }

  private connection(key: string, server: McpServerLaunch): Promise<Connection> {
    let connection = this.open.get(key);
    if (!connection) {
      connection = this.connect(key, server);
      this.open.set(key, connection);
      // A failed connection is not kept: the next run tries again.
      connection.catch(() => {
        if (this.open.get(key) === connection) this.open.delete(key);
      });
    }
    return connection;
  }

  private async connect(key: string, server: McpServerLaunch): Promise<Connection> {
    const tools: Tool[] = [];
    const client = new Client(
      { name: 'parley', version: '1.0.0' },
      {
        listChanged: {
          // The server announced new tools: later runs are offered the new list.
          tools: {
            onChanged: (error, changed) => {
              if (error || !changed) return;
              tools.splice(0, tools.length, ...changed);
              this.lastTools.set(key, [...changed]);
            },
          },
        },
      },
    );
    const timeout = this.settings.mcpConnectTimeoutMs;
    try {
      await client.connect(this.transportFor(server), { timeout });
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const listed = await client.listTools(cursor ? { cursor } : undefined, { timeout });
        tools.push(...listed.tools);
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
      const connection: Connection = { client, tools, lastUsed: Date.now() };
      this.lastTools.set(key, [...tools]);
      client.onclose = () => void this.drop(key, connection);
      this.logger.log(`connected to MCP server ${server.name} (${tools.length} tools)`);
      return connection;
    } catch (error) {
      this.logger.warn(`MCP server ${server.name} is unavailable: ${describe(error)}`);
      await client.close().catch(() => undefined);
      throw error;
    }
  }

  private async drop(key: string, connection: Connection): Promise<void> {
    const current = this.open.get(key);
    if (current && (await current.catch(() => null)) === connection) this.open.delete(key);
    connection.client.onclose = undefined;
    await connection.client.close().catch(() => undefined);
  }

  private async closeIdle(): Promise<void> {
    const idleSince = Date.now() - this.settings.mcpIdleCloseMs;
    for (const [key, pending] of this.open) {
      const connection = await pending.catch(() => null);
      if (connection && connection.lastUsed < idleSince) await this.drop(key, connection);
    }
  }

  private transportFor(server: McpServerLaunch): Transport {
    if (server.url) {
      // Every request goes through the egress guard, on the address it connects to; the SDK follows a redirect
      // only within the origin, each hop through the guard again (CONTRACTS §15).
      return new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: server.headers },
        fetch: egressFetch(this.settings.mcpAllowPrivate),
        redirectPolicy: 'same-origin',
      });
    }
    if (!server.command) throw new Error('the server has neither a command nor a url');
    // The server gets the SDK's minimal environment (PATH, HOME, ...) and its own env, never the worker's secrets.
    return new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...getDefaultEnvironment(), ...server.env },
      stderr: 'ignore',
    });
  }
}

/**
 * One pool entry per organization and transport (a renamed server with the same command shares it); hashed, so
 * the pool's keys hold no secret.
 */
function connectionKey(orgId: string, server: McpServerLaunch): string {
  const transport = [
    orgId,
    server.command ?? null,
    server.args,
    server.env,
    server.url ?? null,
    server.headers,
  ];
  return createHash('sha256').update(JSON.stringify(transport)).digest('hex');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
