import { createAgent, createOrg, OrgFixture, registerMcpServer } from '../factories/admin';
import { FakeOpenAI } from '../support/fake-openai';
import { McpHttpServer, startMcpHttpServer, stdioServerCommand } from '../support/mcp-test-server';
import { AppProcess, freePort, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';
import { ofType, runReply } from './models.support';

/**
 * MCP tools on real processes: servers started by the test (stdio, from the operator's catalogue, spawned by the
 * worker; streamable HTTP with a bearer header, on loopback, which MCP_ALLOW_PRIVATE allows), called by the
 * builtin model's `/tool` and by a vendor model, connections reused across runs, a server's tools removed by
 * disabled_tools, and servers that are down giving tool errors, not failures. What a tenant cannot do with MCP
 * is in security-mcp.e2e-spec.ts.
 */
const OPENAI_KEY = 'sk-openai-mcp-e2e';
const MCP_TOKEN = 'mcp-e2e-token';

let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess;
let org: OrgFixture;
let http: McpHttpServer;
const openai = new FakeOpenAI(OPENAI_KEY);
const agents: Record<string, string> = {};
let stdioPid = 0;

beforeAll(async () => {
  let stdio: { command: string; args: string[] };
  [environment, http, stdio] = await Promise.all([
    createTestEnvironment({ MCP_ALLOW_PRIVATE: 'true' }),
    startMcpHttpServer(MCP_TOKEN),
    stdioServerCommand(),
    openai.start(),
  ]);
  [gateway, worker] = await Promise.all([
    startGateway(environment.env),
    startWorker(environment.env, {
      WORKER_HEALTH_PORT: '0',
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_API_KEY: OPENAI_KEY,
      MCP_CONNECT_TIMEOUT_MS: '5000',
    }),
  ]);
  org = await createOrg(environment.env);
  await Promise.all([
    registerMcpServer(environment.env, 'test-server', stdio),
    registerMcpServer(environment.env, 'ghost', { command: '/nonexistent/mcp-server', args: [] }),
  ]);
  const servers = JSON.stringify([
    { name: 'local', server: 'test-server' },
    { name: 'remote', url: http.url, headers: { authorization: `Bearer ${MCP_TOKEN}` } },
  ]);
  const unreachable = JSON.stringify([
    { name: 'ghost', server: 'ghost' },
    { name: 'gone', url: `http://127.0.0.1:${await freePort()}/mcp` },
  ]);
  const tools = ['--tools', 'clock,mcp:local,mcp:remote', '--mcp', servers];
  const [builtin, vendor, untooled, down] = await Promise.all([
    createAgent(environment.env, org.org, tools),
    createAgent(environment.env, org.org, ['--model', 'openai:gpt-mcp', ...tools]),
    createAgent(environment.env, org.org, ['--mcp', servers]),
    createAgent(environment.env, org.org, ['--tools', 'mcp:ghost,mcp:gone', '--mcp', unreachable]),
  ]);
  Object.assign(agents, { builtin: builtin.id, vendor: vendor.id, untooled: untooled.id, down: down.id });
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop(), openai.close(), http?.close()]);
  await environment?.dispose();
});

const run = (agent: string, content: string, message: Record<string, unknown> = {}) =>
  runReply(gateway.url!, org.key, agents[agent], content, message);

/** The one tool.result of a reply. */
async function toolResult(agent: string, content: string, message: Record<string, unknown> = {}) {
  const reply = await run(agent, content, message);
  expect(reply.message.status).toBe('success');
  const [result] = ofType(reply.lines, 'tool.result');
  return { result, reply };
}

describe('MCP servers up', () => {
  it('the builtin model calls a stdio server’s tool, and the server process is reused by the next run', async () => {
    const first = await toolResult('builtin', '/tool local__echo {"text":"hi"}');
    expect(first.result).toMatchObject({ name: 'local__echo', is_error: false });
    const pid = /^echo: hi \(pid (\d+)\)$/.exec(first.result.output as string)?.[1];
    expect(pid).toBeDefined();
    stdioPid = Number(pid);
    expect(stdioPid).not.toBe(worker.child.pid);
    const second = await toolResult('builtin', '/tool local__echo {"text":"again"}');
    expect(second.result.output).toBe(`echo: again (pid ${pid})`);
    expect(second.reply.message.content).toContain(`echo: again (pid ${pid})`);
  });

  it('the builtin model calls a streamable HTTP server’s tool with its headers, over one connection', async () => {
    const { result, reply } = await toolResult('builtin', '/tool remote__add {"a":2,"b":3}');
    expect(ofType(reply.lines, 'tool.call')[0]).toMatchObject({
      name: 'remote__add',
      arguments: { a: 2, b: 3 },
    });
    expect(result).toMatchObject({ name: 'remote__add', output: { sum: 5 }, is_error: false });
    await toolResult('builtin', '/tool remote__add {"a":1,"b":1}');
    expect(http.initializations).toBe(1);
  });

  it('an error result of an MCP tool is a tool error, the reply still a success', async () => {
    const { result } = await toolResult('builtin', '/tool remote__fail {}');
    expect(result).toMatchObject({ is_error: true, output: 'this tool always fails' });
  });

  it('a vendor model is offered the servers’ tools under vendor-safe names and calls them', async () => {
    const { result, reply } = await toolResult('vendor', 'call local__echo {"text":"from gpt"}');
    expect(result).toMatchObject({ name: 'local__echo', is_error: false });
    expect(reply.message.content).toMatch(/^Results: "?echo: from gpt \(pid \d+\)/);
    const offered = openai.requests[openai.requests.length - 1].body.tools.map(
      (tool: { function: { name: string } }) => tool.function.name,
    );
    expect(offered.sort()).toEqual(
      [
        'clock',
        'local__add',
        'local__echo',
        'local__env',
        'local__fail',
        'remote__add',
        'remote__echo',
        'remote__env',
        'remote__fail',
      ].sort(),
    );
  });

  it('disabled_tools ["mcp:local"] removes every tool of that server, and only those', async () => {
    const disabled = { disabled_tools: ['mcp:local'] };
    const off = await toolResult('builtin', '/tool local__echo {"text":"x"}', disabled);
    expect(off.result).toMatchObject({ is_error: true, output: 'tool local__echo is not available' });
    const on = await toolResult('builtin', '/tool remote__echo {"text":"y"}', disabled);
    expect(on.result.is_error).toBe(false);
  });

  it('an agent without a tool list gets no MCP server', async () => {
    const { result } = await toolResult('untooled', '/tool local__echo {"text":"x"}');
    expect(result).toMatchObject({ is_error: true, output: 'tool local__echo is not available' });
  });
});

describe('MCP servers down', () => {
  it('a server that cannot be started or reached offers no tools: a call is a tool error', async () => {
    for (const tool of ['ghost__echo', 'gone__echo']) {
      const { result } = await toolResult('down', `/tool ${tool} {"text":"x"}`);
      expect(result).toMatchObject({ is_error: true, output: `tool ${tool} is not available` });
    }
  });

  it('a server that goes away: its tools answer errors to the builtin and the vendor model', async () => {
    await http.close();
    const builtin = await toolResult('builtin', '/tool remote__add {"a":1,"b":2}');
    expect(builtin.result.is_error).toBe(true);
    expect(builtin.result.output).toMatch(/^MCP server remote/);
    const vendor = await toolResult('vendor', 'call remote__add {"a":1,"b":2}');
    expect(vendor.result.is_error).toBe(true);
    expect(vendor.reply.message.content).toMatch(/^Results: .*MCP server remote/);
  });
});

it('closes its MCP connections on shutdown: the stdio server process ends with the worker', async () => {
  expect(() => process.kill(stdioPid, 0)).not.toThrow();
  expect(await worker.stop()).toBe(0);
  const deadline = Date.now() + 5000;
  const alive = () => {
    try {
      process.kill(stdioPid, 0);
      return true;
    } catch {
      return false;
    }
  };
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(alive()).toBe(false);
});
