import { networkInterfaces } from 'node:os';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { FakeSite } from '../support/fake-site';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';
import { ofType, runReply } from './models.support';

/**
 * The `web` tool on real processes: a worker with the deny-list relaxed (WEB_TOOL_ALLOW_PRIVATE) fetches a page
 * of a local server; then a worker with the default settings refuses the same loopback address, by IP and by a
 * name resolving to it, without a request reaching the server.
 */
let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess | undefined;
let org: OrgFixture;
let agentId: string;
const site = new FakeSite((req, res) => {
  if (req.url === '/moved') {
    res.writeHead(301, { location: '/article' }).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    '<html><head><title>Tide tables</title><style>body{}</style></head>' +
      '<body><h1>High tide</h1><p>At 06:12 and 18:40.</p><script>track()</script></body></html>',
  );
});
const hits = site.hits;
let base: string;

beforeAll(async () => {
  base = (await site.start()).url;
  environment = await createTestEnvironment();
  [gateway, worker] = await Promise.all([
    startGateway(environment.env),
    startWorker(environment.env, { WORKER_HEALTH_PORT: '0', WEB_TOOL_ALLOW_PRIVATE: 'true' }),
  ]);
  org = await createOrg(environment.env);
  agentId = (await createAgent(environment.env, org.org, ['--tools', 'web'])).id;
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await site.stop();
  await environment?.dispose();
});

async function webResult(url: string, message: Record<string, unknown> = {}) {
  const reply = await runReply(
    gateway.url!,
    org.key,
    agentId,
    `/tool web ${JSON.stringify({ url })}`,
    message,
  );
  expect(reply.message.status).toBe('success');
  const [result] = ofType(reply.lines, 'tool.result');
  expect(result.name).toBe('web');
  return result;
}

describe('with the deny-list relaxed', () => {
  it('fetches a page and gives its readable text, following a redirect', async () => {
    const result = await webResult(`${base}/moved`);
    expect(result.is_error).toBe(false);
    expect(result.output).toEqual({
      url: `${base}/article`,
      status: 200,
      content_type: 'text/html; charset=utf-8',
      title: 'Tide tables',
      text: 'High tide\n\nAt 06:12 and 18:40.',
      truncated: false,
    });
    expect(hits).toEqual(['/moved', '/article']);
  });

  it('is not offered when the message disables it', async () => {
    const result = await webResult(`${base}/article`, { disabled_tools: ['web'] });
    expect(result).toMatchObject({ is_error: true, output: 'tool web is not available' });
  });
});

describe('with the default settings', () => {
  beforeAll(async () => {
    await worker?.stop();
    worker = await startWorker(environment.env, { WORKER_HEALTH_PORT: '0' });
    hits.length = 0;
  });

  it('refuses a loopback address, by IP and by a name resolving to it, without reaching it', async () => {
    const byIp = await webResult(`${base}/article`);
    expect(byIp).toMatchObject({
      is_error: true,
      output: `refused ${base}/article: 127.0.0.1 is an address of this host`,
    });
    const byName = await webResult(base.replace('127.0.0.1', 'localhost'));
    expect(byName.is_error).toBe(true);
    expect(byName.output).toMatch(
      /^refused http:\/\/localhost:\d+\/: localhost resolves to (127\.0\.0\.1|::1), an address of this host$/,
    );
    expect(hits).toEqual([]);
  });

  it("refuses an address of one of this host's own interfaces that is not loopback, before connecting", async () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && !entry.internal && entry.family === 'IPv4');
    if (!own) throw new Error('this test needs a non-loopback IPv4 interface');
    const port = site.port;
    const result = await webResult(`http://${own.address}:${port}/article`);
    expect(result).toMatchObject({
      is_error: true,
      output: `refused http://${own.address}:${port}/article: ${own.address} is an address of this host`,
    });
  });

  it('refuses IPv6 spellings of loopback and metadata, judged as the IPv4 address they carry (issue #44)', async () => {
    const port = site.port;
    for (const [host, reason] of [
      ['[::127.0.0.1]', 'an address of this host inside an IPv6 address'],
      ['[::a9fe:a9fe]', 'a linkLocal address inside an IPv6 address'],
      ['[::ffff:7f00:1]', 'an address of this host'],
      ['[64:ff9b::7f00:1]', 'an address of this host inside an IPv6 address'],
      ['[2002:7f00:0001::]', 'an address of this host inside an IPv6 address'],
    ]) {
      const result = await webResult(`http://${host}:${port}/article`);
      expect(result).toMatchObject({ is_error: true });
      expect(result.output).toMatch(new RegExp(`is ${reason}$`));
    }
    expect(hits).toEqual([]);
  });

  it('refuses reserved ranges a hand-written list missed: documentation, benchmarking, mapped IPv6', async () => {
    for (const [host, reason] of [
      ['198.51.100.7', 'a reserved address'],
      ['198.18.0.1', 'a reserved address'],
      ['[::ffff:c000:20a]', 'a reserved address'],
    ]) {
      const result = await webResult(`http://${host}/`);
      expect(result).toMatchObject({ is_error: true });
      expect(result.output).toMatch(new RegExp(`is ${reason}$`));
    }
    expect(hits).toEqual([]);
  });
});
