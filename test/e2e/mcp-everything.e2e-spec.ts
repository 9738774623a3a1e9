import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createOrg, OrgFixture, registerMcpServer } from '../factories/admin';
import { FakeOpenAI } from '../support/fake-openai';
import { api } from '../support/http';
import { AppProcess, freePort, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';
import { ofType, runReply } from './models.support';

/**
 * A real MCP server from the npm registry, @modelcontextprotocol/server-everything: catalogued by the operator,
 * started by the worker over stdio with the `env` the agent was given over HTTP (its `get-env` tool prints the
 * environment it got), and reached over streamable HTTP on loopback (MCP_ALLOW_PRIVATE); its `get-tiny-image` tool's image reaches a vision vendor as an image part,
 * while the stream and events carry a placeholder.
 */
const OPENAI_KEY = 'sk-openai-everything-e2e';
const ENV_SECRET = 'ghp-everything-e2e-secret';
const HEADER_SECRET = 'header-everything-e2e-secret';
const EVERYTHING = join(
  __dirname,
  '..',
  '..',
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
/** The SDK's minimal environment for stdio servers, on Linux. */
const MINIMAL_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
/** The start of every base64 PNG: its bytes must never be in the stream. */
const PNG_BASE64 = 'iVBORw0KGgo';

let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess;
let httpServer: ChildProcess;
let org: OrgFixture;
const openai = new FakeOpenAI(OPENAI_KEY);
const agents: Record<string, string> = {};

async function startEverythingOverHttp(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start:\n${output}`)), 30000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', () => reject(new Error(`server-everything exited:\n${output}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}

beforeAll(async () => {
  let http: { child: ChildProcess; url: string };
  [environment, http] = await Promise.all([
    createTestEnvironment({ MCP_ALLOW_PRIVATE: 'true' }),
    startEverythingOverHttp(),
    openai.start(),
  ]);
  httpServer = http.child;
  // One after the other: on a loaded machine two cold starts at once can each miss their start deadline.
  gateway = await startGateway(environment.env);
  worker = await startWorker(environment.env, {
    WORKER_HEALTH_PORT: '0',
    OPENAI_BASE_URL: openai.baseUrl,
    OPENAI_API_KEY: OPENAI_KEY,
    MCP_CONNECT_TIMEOUT_MS: '20000',
  });
  org = await createOrg(environment.env);
  await registerMcpServer(
    environment.env,
    'everything',
    { command: process.execPath, args: [EVERYTHING, 'stdio'] },
    ['GITHUB_TOKEN'],
  );
  const mcp = [
    { name: 'local', server: 'everything', env: { GITHUB_TOKEN: ENV_SECRET } },
    { name: 'remote', url: http.url, headers: { authorization: `Bearer ${HEADER_SECRET}` } },
  ];
  const client = api(gateway.url!, org.key);
  for (const [key, model] of [
    ['builtin', 'builtin'],
    ['vision', 'openai:gpt-vision'],
  ]) {
    const created = await client.post('/agents', {
      name: key,
      model,
      tools: ['mcp:local', 'mcp:remote'],
      mcp,
    });
    if (created.status !== 200) throw new Error(`POST /agents: ${JSON.stringify(created.body)}`);
    agents[key] = created.body.id;
  }
});

afterAll(async () => {
  httpServer?.kill();
  await Promise.all([gateway?.stop(), worker?.stop(), openai.close()]);
  await environment?.dispose();
});

const run = (agent: string, content: string) => runReply(gateway.url!, org.key, agents[agent], content);

describe('server-everything from the npm registry', () => {
  it('over stdio gets exactly the minimal environment plus its own env, opened by the worker', async () => {
    const reply = await run('builtin', '/tool local__get-env {}');
    const [result] = ofType(reply.lines, 'tool.result');
    expect(result).toMatchObject({ name: 'local__get-env', is_error: false });
    const seen = JSON.parse(result.output as string) as Record<string, string>;
    expect(seen.GITHUB_TOKEN).toBe(ENV_SECRET);
    for (const name of Object.keys(seen)) expect([...MINIMAL_ENV, 'GITHUB_TOKEN']).toContain(name);
    // Nothing of the worker's own environment (its database, Redis, vendor key) reaches the server.
    expect(seen.DATABASE_URL).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain(OPENAI_KEY);
    expect(worker.output).not.toContain(ENV_SECRET);
    expect(gateway.output).not.toContain(ENV_SECRET);
  });

  it('over streamable HTTP answers its tools', async () => {
    const reply = await run('builtin', '/tool remote__echo {"message":"over http"}');
    const [result] = ofType(reply.lines, 'tool.result');
    expect(result).toMatchObject({ name: 'remote__echo', is_error: false });
    expect(result.output).toContain('over http');
    expect(worker.output).not.toContain(HEADER_SECRET);
  });

  it('a tool image reaches a vision vendor as an image part; the stream carries a placeholder', async () => {
    const before = openai.requests.length;
    const reply = await run('vision', 'call local__get-tiny-image {}');
    expect(reply.message.status).toBe('success');
    const [result] = ofType(reply.lines, 'tool.result');
    expect(result.output).toMatch(/\[image image\/png, \d+ bytes\]/);
    expect(JSON.stringify(reply.lines)).not.toContain(PNG_BASE64);

    const followUp = openai.requests
      .slice(before)
      .find((request) => request.body.messages.some((message: { role: string }) => message.role === 'tool'));
    expect(followUp).toBeDefined();
    const messages = followUp!.body.messages as { role: string; content: unknown }[];
    const toolMessage = messages.find((message) => message.role === 'tool')!;
    expect(String(toolMessage.content)).not.toContain(PNG_BASE64);
    const imageParts = messages
      .filter((message) => message.role === 'user' && Array.isArray(message.content))
      .flatMap((message) => message.content as { type: string; image_url?: { url: string } }[])
      .filter((part) => part.type === 'image_url');
    expect(imageParts).toHaveLength(1);
    expect(imageParts[0].image_url!.url).toMatch(new RegExp(`^data:image/png;base64,${PNG_BASE64}`));
  });

  it('the builtin model reads a tool image as a short placeholder', async () => {
    const reply = await run('builtin', '/tool local__get-tiny-image {}');
    expect(reply.message.content).toContain('[image omitted]');
    expect(JSON.stringify(reply.lines)).not.toContain(PNG_BASE64);
  });
});
