import { createServer, IncomingMessage, Server as HttpServer } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * An MCP server for tests, built with the SDK's server classes, over stdio (this file run as a script) or
 * streamable HTTP (startMcpHttpServer). Tools: `echo {text}` (answers with the text and the server's pid, so a
 * test sees whether a connection was reused), `add {a, b}` (structured content), `fail` (an error result),
 * `env` (the server process's whole environment, so a test sees what a started server was given).
 */
function mcpServer(): Server {
  const server = new Server({ name: 'parley-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: 'echo',
        description: 'Echoes a text back.',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      },
      {
        name: 'add',
        description: 'Adds two numbers.',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
      },
      { name: 'fail', description: 'Always fails.', inputSchema: { type: 'object', properties: {} } },
      { name: 'env', description: 'Its environment.', inputSchema: { type: 'object', properties: {} } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case 'echo':
        return { content: [{ type: 'text', text: `echo: ${String(args.text)} (pid ${process.pid})` }] };
      case 'add': {
        const sum = Number(args.a) + Number(args.b);
        return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
      }
      case 'fail':
        return { content: [{ type: 'text', text: 'this tool always fails' }], isError: true };
      case 'env':
        return { content: [{ type: 'text', text: 'env' }], structuredContent: { env: { ...process.env } } };
      default:
        return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true };
    }
  });
  return server;
}

export interface McpHttpServer {
  url: string;
  /** initialize requests received: one per client connection. */
  initializations: number;
  /** Requests received, of any kind. */
  requests: number;
  close(): Promise<void>;
}

/**
 * Streamable HTTP, stateless: a fresh server per request. Requires `authorization: Bearer <token>`. Any path
 * under `/moved` answers a redirect to `/mcp` on the same server. `url` is on loopback; listening on every
 * interface (`0.0.0.0`) makes it reachable at the host's other addresses too.
 */
export async function startMcpHttpServer(token: string, listenHost = '127.0.0.1'): Promise<McpHttpServer> {
  const state = { initializations: 0, requests: 0 };
  const http: HttpServer = createServer((req, res) => {
    state.requests++;
    void (async () => {
      if (req.url?.startsWith('/moved')) {
        res.writeHead(307, { location: '/mcp' }).end();
        return;
      }
      if (req.headers.authorization !== `Bearer ${token}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        return;
      }
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      if ((body as { method?: string } | undefined)?.method === 'initialize') state.initializations++;
      const server = mcpServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close().then(() => server.close()));
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })();
  });
  await new Promise<void>((resolve) => http.listen(0, listenHost, resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get initializations() {
      return state.initializations;
    },
    get requests() {
      return state.requests;
    },
    close: async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** A server answering every request with a 307 to `location`: a redirect to another origin. */
export async function startRedirect(location: string): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer((_req, res) => res.writeHead(307, { location }).end());
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString() || 'null');
}

/**
 * `command` and `args` that start this server over stdio from any process: this file compiled to JavaScript in
 * a temporary directory, its package imports pointing at this checkout's node_modules (the worker runs MCP
 * servers with a minimal environment, no NODE_PATH).
 */
export async function stdioServerCommand(): Promise<{ command: string; args: string[] }> {
  const ts = await import('typescript');
  const { outputText } = ts.transpileModule(readFileSync(__filename, 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  });
  const resolved = outputText.replace(/require\("([^".][^"]*)"\)/g, (call, id: string) =>
    id.startsWith('node:') ? call : `require(${JSON.stringify(require.resolve(id))})`,
  );
  const file = join(mkdtempSync(join(tmpdir(), 'parley-mcp-')), 'mcp-test-server.js');
  writeFileSync(file, resolved);
  return { command: process.execPath, args: [file, '--stdio'] };
}

if (require.main === module && process.argv.includes('--stdio')) {
  void mcpServer().connect(new StdioServerTransport());
}
