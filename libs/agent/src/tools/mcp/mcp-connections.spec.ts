import { Settings } from '@app/config';
import {
  McpHttpServer,
  startMcpHttpServer,
  startRedirect,
} from '../../../../../test/support/mcp-test-server';
import { ToolError } from '../tool';
import { McpConnections } from './mcp-connections';
import { McpServerLaunch } from './mcp-server-launch';
import { withoutImageBytes } from '../tool-content';
import { toolOutput } from './mcp-tool-source';

const TOKEN = 'unit-token';
const signal = new AbortController().signal;

describe('McpConnections over streamable HTTP', () => {
  let http: McpHttpServer;
  let connections: McpConnections;
  let server: McpServerLaunch;

  beforeAll(async () => {
    http = await startMcpHttpServer(TOKEN);
    server = {
      name: 'remote',
      url: http.url,
      args: [],
      env: {},
      headers: { authorization: `Bearer ${TOKEN}` },
    };
    // The test server is on loopback, which only MCP_ALLOW_PRIVATE lets a connection reach.
    connections = new McpConnections(
      Object.assign(new Settings(), { mcpConnectTimeoutMs: 2000, mcpAllowPrivate: true }),
    );
  });

  afterAll(async () => {
    await connections.onApplicationShutdown();
    await http.close();
  });

  it('lists and calls tools over one connection per organization and server', async () => {
    expect((await connections.tools('org-1', server)).map((tool) => tool.name)).toEqual([
      'echo',
      'add',
      'fail',
      'env',
    ]);
    const result = await connections.call('org-1', server, 'add', { a: 4, b: 5 }, signal);
    expect(toolOutput(result)).toEqual({ sum: 9 });
    await connections.tools('org-1', server);
    expect(http.initializations).toBe(1);
    await connections.tools('org-2', server);
    expect(http.initializations).toBe(2);
  });

  it('sends the configured headers: a wrong one is refused and the server offers no tools', async () => {
    const wrong = { ...server, headers: { authorization: 'Bearer nope' } };
    await expect(connections.tools('org-1', wrong)).rejects.toThrow();
    await expect(connections.call('org-1', wrong, 'echo', { text: 'x' }, signal)).rejects.toThrow(
      /^MCP server remote is unavailable: /,
    );
  });

  it('a server gone down: its last tool list is kept, calls become tool errors', async () => {
    await http.close();
    await expect(connections.call('org-1', server, 'echo', { text: 'x' }, signal)).rejects.toBeInstanceOf(
      ToolError,
    );
    expect((await connections.tools('org-1', server)).map((tool) => tool.name)).toEqual([
      'echo',
      'add',
      'fail',
      'env',
    ]);
    await expect(connections.call('org-1', server, 'echo', { text: 'x' }, signal)).rejects.toThrow(
      /^MCP server remote is unavailable: /,
    );
  });
});

describe('McpConnections and the egress guard', () => {
  let http: McpHttpServer;
  const remote = (url: string): McpServerLaunch => ({
    name: 'remote',
    url,
    args: [],
    env: {},
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const connectionsWith = (mcpAllowPrivate: boolean) =>
    new McpConnections(Object.assign(new Settings(), { mcpConnectTimeoutMs: 2000, mcpAllowPrivate }));

  beforeAll(async () => {
    http = await startMcpHttpServer(TOKEN);
  });

  afterAll(async () => {
    await http.close();
  });

  it('by default reaches no loopback server, by IP or by a name resolving to it, sending nothing', async () => {
    const connections = connectionsWith(false);
    try {
      await expect(connections.tools('org-1', remote(http.url))).rejects.toThrow(
        /127\.0\.0\.1 is an address of this host/,
      );
      await expect(
        connections.tools('org-1', remote(http.url.replace('127.0.0.1', 'localhost'))),
      ).rejects.toThrow(/localhost resolves to (127\.0\.0\.1|::1), an address of this host/);
      expect(http.requests).toBe(0);
    } finally {
      await connections.onApplicationShutdown();
    }
  });

  it('follows a redirect within the origin, and none to another host', async () => {
    const connections = connectionsWith(true);
    const elsewhere = await startRedirect(http.url.replace('127.0.0.1', 'localhost'));
    try {
      const before = http.requests;
      await expect(connections.tools('org-1', remote(elsewhere.url))).rejects.toThrow(
        /Redirect to http:\/\/localhost:\d+\/mcp not followed/,
      );
      expect(http.requests).toBe(before);
      const moved = remote(http.url.replace(/\/mcp$/, '/moved'));
      expect((await connections.tools('org-1', moved)).map((tool) => tool.name)).toContain('echo');
    } finally {
      await connections.onApplicationShutdown();
      await elsewhere.close();
    }
  });
});

describe('toolOutput', () => {
  it('gives structured content when there is some, else the text parts', () => {
    expect(toolOutput({ content: [{ type: 'text', text: '3' }], structuredContent: { sum: 3 } })).toEqual({
      sum: 3,
    });
    expect(
      toolOutput({
        content: [
          { type: 'text', text: 'a' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        ],
      }),
    ).toBe('a\n[audio content omitted]');
  });

  it('keeps images as tool content, whose text form holds a placeholder instead of the bytes', () => {
    const output = toolOutput({
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ],
    });
    expect(output).toEqual({
      type: 'tool-content',
      parts: [
        { type: 'text', text: 'a' },
        { type: 'image', mediaType: 'image/png', data: 'AAAA' },
      ],
    });
    expect(withoutImageBytes(output)).toBe('a\n[image image/png, 3 bytes]');
  });

  it('turns an error result into a ToolError with its text', () => {
    expect(() => toolOutput({ content: [{ type: 'text', text: 'broken' }], isError: true })).toThrow(
      new ToolError('broken'),
    );
  });
});
