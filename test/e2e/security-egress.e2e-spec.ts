import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { McpHttpServer, startMcpHttpServer, startRedirect } from '../support/mcp-test-server';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';
import { ofType, runReply } from './models.support';

/**
 * What a tenant's agent or webhook may make the service reach (issue 28, CONTRACTS §14-§15): remote MCP
 * servers and webhooks on private, loopback, link-local or this host's addresses are refused when stored, and
 * again on the connection itself. For the second check, a gateway with MCP_ALLOW_PRIVATE and
 * WEBHOOK_ALLOW_PRIVATE stores what the default one refuses (a URL that passed creation and points at this host
 * at connection time), and a worker with the default settings must still not reach it.
 */
const TOKEN = 'egress-e2e-token';

let environment: TestEnvironment;
let strict: AppProcess;
let lenient: AppProcess;
let worker: AppProcess;
let org: OrgFixture;
let mcp: McpHttpServer;
let hook: Server;
const hookRequests: string[] = [];
let hookUrl: string;

/** An IPv4 address of this host that is not loopback: refused as "an address of this host". */
function ownAddress(): string {
  const own = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry && !entry.internal && entry.family === 'IPv4');
  if (!own) throw new Error('this test needs a non-loopback IPv4 interface');
  return own.address;
}

beforeAll(async () => {
  hook = createServer((req, res) => {
    hookRequests.push(req.url ?? '');
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((resolve) => hook.listen(0, '0.0.0.0', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  [environment, mcp] = await Promise.all([
    createTestEnvironment({ WEBHOOK_SWEEP_INTERVAL_MS: '200', WEBHOOK_RETRY_BASE_MS: '60000' }),
    startMcpHttpServer(TOKEN, '0.0.0.0'),
  ]);
  const allowPrivate = { MCP_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
  [strict, lenient, worker] = await Promise.all([
    startGateway(environment.env),
    startGateway(environment.env, allowPrivate),
    startWorker(environment.env, { WORKER_HEALTH_PORT: '0', MCP_CONNECT_TIMEOUT_MS: '5000' }),
  ]);
  org = await createOrg(environment.env);
});

afterAll(async () => {
  await Promise.all([strict?.stop(), lenient?.stop(), worker?.stop(), mcp?.close()]);
  hook?.closeAllConnections();
  await new Promise((resolve) => hook?.close(resolve));
  await environment?.dispose();
});

/** An agent stored through the lenient gateway with one remote MCP server `remote` at `url`. */
async function agentReaching(url: string): Promise<string> {
  const created = await api(lenient.url!, org.key).post('/agents', {
    name: 'remote',
    tools: ['mcp:remote'],
    mcp: [{ name: 'remote', url, headers: { authorization: `Bearer ${TOKEN}` } }],
  });
  expect(created.status).toBe(200);
  return created.body.id;
}

async function echoResult(agentId: string) {
  const reply = await runReply(strict.url!, org.key, agentId, '/tool remote__echo {"text":"x"}');
  expect(reply.message.status).toBe('success');
  return ofType(reply.lines, 'tool.result')[0];
}

describe('remote MCP servers', () => {
  it('refuses loopback, private, link-local, metadata and own addresses when an agent is saved (422 at url)', async () => {
    const port = new URL(mcp.url).port;
    const urls = [
      mcp.url,
      `http://localhost:${port}/mcp`,
      'http://[::1]/mcp',
      'http://10.0.0.7/mcp',
      'http://192.168.1.20/mcp',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/mcp',
      `http://${ownAddress()}:${port}/mcp`,
    ];
    const client = api(strict.url!, org.key);
    const created = await client.post('/agents', {
      name: 'probe',
      mcp: urls.map((url, index) => ({ name: `s${index}`, url })),
    });
    expect(created.status).toBe(422);
    expect(created.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual(
      urls.map((_url, index) => ['body', 'mcp', index, 'url']),
    );
    expect(created.body.detail[5]).toEqual({
      type: 'value_error',
      loc: ['body', 'mcp', 5, 'url'],
      msg: 'Value error, 169.254.169.254 is a linkLocal address',
      input: 'http://169.254.169.254/latest/meta-data/',
      ctx: { error: {} },
    });
    const { body: agent } = await client.post('/agents', { name: 'later' });
    const updated = await client.put(`/agents/${agent.id}`, { mcp: [{ name: 'meta', url: urls[5] }] });
    expect(updated.status).toBe(422);
    expect(updated.body.detail[0].loc).toEqual(['body', 'mcp', 0, 'url']);
    expect(mcp.requests).toBe(0);
  });

  it('refuses IPv6 spellings of loopback and metadata when an agent or a webhook is saved (issue #44)', async () => {
    const hosts = [
      '[::127.0.0.1]',
      '[::a9fe:a9fe]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::ffff:0:7f00:1]',
      '[64:ff9b::a9fe:a9fe]',
      '[2002:7f00:0001::]',
    ];
    const client = api(strict.url!, org.key);
    const created = await client.post('/agents', {
      name: 'spellings',
      mcp: hosts.map((host, index) => ({ name: `s${index}`, url: `http://${host}/mcp` })),
    });
    expect(created.status).toBe(422);
    expect(created.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual(
      hosts.map((_host, index) => ['body', 'mcp', index, 'url']),
    );
    expect(created.body.detail[0].msg).toBe(
      'Value error, ::7f00:1 is an address of this host inside an IPv6 address',
    );
    expect(created.body.detail[1].msg).toBe(
      'Value error, ::a9fe:a9fe is a linkLocal address inside an IPv6 address',
    );
    for (const host of hosts) {
      const hook = await client.post('/webhooks', {
        url: `http://${host}/hook`,
        events: ['message.completed'],
      });
      expect(hook.status).toBe(422);
      expect(hook.body.detail[0].loc).toEqual(['body', 'url']);
    }
    expect(mcp.requests).toBe(0);
  });

  it('does not connect to a stored URL on this host, by IP, by name or by an interface address', async () => {
    const port = new URL(mcp.url).port;
    for (const url of [mcp.url, `http://localhost:${port}/mcp`, `http://${ownAddress()}:${port}/mcp`]) {
      const result = await echoResult(await agentReaching(url));
      expect(result).toMatchObject({ is_error: true, output: 'tool remote__echo is not available' });
    }
    expect(mcp.requests).toBe(0);
    expect(worker.output).toContain('127.0.0.1 is an address of this host');
  });

  describe('with MCP_ALLOW_PRIVATE on the worker', () => {
    beforeAll(async () => {
      await worker.stop();
      worker = await startWorker(environment.env, {
        WORKER_HEALTH_PORT: '0',
        MCP_CONNECT_TIMEOUT_MS: '5000',
        MCP_ALLOW_PRIVATE: 'true',
      });
    });

    it('reaches the same server', async () => {
      const result = await echoResult(await agentReaching(mcp.url));
      expect(result).toMatchObject({ is_error: false, output: expect.stringMatching(/^echo: x/) });
    });

    it('follows no redirect to another host', async () => {
      const redirect = await startRedirect(mcp.url.replace('127.0.0.1', 'localhost'));
      try {
        const before = mcp.requests;
        const result = await echoResult(await agentReaching(redirect.url));
        expect(result).toMatchObject({ is_error: true, output: 'tool remote__echo is not available' });
        expect(mcp.requests).toBe(before);
      } finally {
        await redirect.close();
      }
    });
  });
});

describe('webhooks', () => {
  it('refuses a URL on this host when it is saved (422 at url)', async () => {
    const created = await api(strict.url!, org.key).post('/webhooks', {
      url: hookUrl,
      events: ['message.completed'],
    });
    expect(created.status).toBe(422);
    expect(created.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'url'],
        msg: 'Value error, 127.0.0.1 is an address of this host',
      }),
    ]);
  });

  it('does not deliver to a stored URL on this host: the attempt is recorded as refused', async () => {
    const client = api(lenient.url!, org.key);
    const targets = [hookUrl, hookUrl.replace('127.0.0.1', `${ownAddress()}`)];
    const webhooks = await Promise.all(
      targets.map((url) => client.post('/webhooks', { url, events: ['message.completed'] })),
    );
    const { body: agent } = await client.post('/agents', { name: 'plain' });
    const reply = await runReply(strict.url!, org.key, agent.id, 'hello');
    expect(reply.message.status).toBe('success');
    for (const webhook of webhooks) {
      expect(webhook.status).toBe(200);
      const deadline = Date.now() + 20000;
      let attempts: { error: string | null; status_code: number | null }[] = [];
      while (attempts.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        attempts = (await client.get(`/webhooks/${webhook.body.id}/deliveries`)).body;
      }
      expect(attempts).toEqual([
        expect.objectContaining({
          status_code: null,
          error: expect.stringMatching(/^refused: .+ is an address of this host$/),
        }),
      ]);
    }
    expect(hookRequests).toEqual([]);
  });
});
