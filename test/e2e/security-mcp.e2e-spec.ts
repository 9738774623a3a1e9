import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { dataSourceOptions } from '@app/persistence';
import { useDeployment } from '../support/deployment';
import { admin, registerMcpServer } from '../factories/admin';
import { api } from '../support/http';
import { stdioServerCommand } from '../support/mcp-test-server';
import { ofType, runReply } from './models.support';

/**
 * A hostile tenant with a service key cannot make a worker run a program of its choosing (issue 28, CONTRACTS
 * §15): a `command` is refused over HTTP, stdio servers are the operator's catalogue, a catalogued server gets
 * only the variables its entry allows, and a command an agent stored before the catalogue existed does not run
 * until the operator confirms it. The programs here would write a marker file if they ever ran.
 */
const MINIMAL_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

const deployment = useDeployment({
  workers: 1,
  workerEnv: { WORKER_HEALTH_PORT: '0', MCP_CONNECT_TIMEOUT_MS: '5000' },
});
let client: ReturnType<typeof api>;
const markers = mkdtempSync(join(tmpdir(), 'parley-mcp-marker-'));

/** A program that writes `marker` when started: the proof that something ran. */
const writing = (marker: string) => ({
  command: process.execPath,
  args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`],
});

beforeAll(() => {
  client = deployment.client();
});

async function toolResult(agentId: string, content: string) {
  const reply = await runReply(deployment.url, deployment.org.key, agentId, content);
  expect(reply.message.status).toBe('success');
  return ofType(reply.lines, 'tool.result')[0];
}

describe('an agent that stored a command before the catalogue', () => {
  const marker = join(markers, 'migrated');
  const legacy = writing(marker);
  const agentId = randomUUID();
  let migratedName: string;

  /**
   * What the catalogue migration (issue 28) left of an agent stored with a command before the catalogue: an
   * unconfirmed entry `migrated-<hash>` with the command, allowing no variables, that the agent's item names. First
   * in this file, while the catalogue is still empty.
   */
  beforeAll(async () => {
    const name = `migrated-${randomBytes(6).toString('hex')}`;
    const db = await new DataSource(
      dataSourceOptions(loadSettings({ DATABASE_URL: deployment.environment.databaseUrl }), 1),
    ).initialize();
    try {
      await db.query(
        `INSERT INTO mcp_catalogue (name, command, args, confirmed) VALUES ($1, $2, $3, false)`,
        [name, legacy.command, JSON.stringify(legacy.args)],
      );
      await db.query(
        `INSERT INTO agents (id, org_id, name, tools, mcp_servers) VALUES ($1, $2, 'legacy', $3, $4)`,
        [
          agentId,
          deployment.org.orgId,
          JSON.stringify(['mcp:probe']),
          JSON.stringify([{ name: 'probe', server: name }]),
        ],
      );
    } finally {
      await db.destroy();
    }
  });

  it('names an unconfirmed catalogue entry that mcp:list shows, and its command does not run', async () => {
    const { servers } = await admin<{ servers: Record<string, unknown>[] }>(deployment.environment.env, [
      'mcp:list',
    ]);
    expect(servers).toEqual([
      expect.objectContaining({
        ...legacy,
        name: expect.stringMatching(/^migrated-[0-9a-f]{12}$/),
        env_allow: [],
        confirmed: false,
      }),
    ]);
    migratedName = String(servers[0].name);
    const { body: agent } = await client.get(`/agents/${agentId}`);
    expect(agent.mcp).toEqual([{ name: 'probe', server: migratedName, env_names: [] }]);

    const result = await toolResult(agentId, '/tool probe__run {}');
    expect(result).toMatchObject({ is_error: true, output: 'tool probe__run is not available' });
    expect(existsSync(marker)).toBe(false);
  });

  it('runs once the operator confirms it by registering the same name', async () => {
    await registerMcpServer(deployment.environment.env, migratedName, legacy);
    // Not an MCP server, so it offers no tools; but it was started.
    await toolResult(agentId, '/tool probe__run {}');
    expect(existsSync(marker)).toBe(true);
  });
});

describe('a tenant naming a command', () => {
  it('is refused with a 422 at the item, on create and on update, and nothing runs', async () => {
    const marker = join(markers, 'http');
    const probe = { name: 'probe', ...writing(marker), env: { TOKEN: 'probe-secret' } };
    const created = await client.post('/agents', { name: 'probe', tools: ['mcp:probe'], mcp: [probe] });
    expect(created.status).toBe(422);
    expect(created.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'mcp', 0],
        msg: "Value error, command and args are not accepted: a stdio MCP server is one of the operator's catalogue, named by server",
        input: { command: probe.command, args: probe.args },
        ctx: { error: {} },
      },
    ]);
    expect(JSON.stringify(created.body)).not.toContain('probe-secret');
    const { body: agent } = await client.post('/agents', { name: 'probe', tools: ['mcp:probe'] });
    const updated = await client.put(`/agents/${agent.id}`, { mcp: [{ name: 'probe', args: ['-e', '1'] }] });
    expect(updated.status).toBe(422);
    expect(updated.body.detail[0].loc).toEqual(['body', 'mcp', 0]);
    expect((await client.get(`/agents/${agent.id}`)).body.mcp).toEqual([]);

    const result = await toolResult(agent.id, '/tool probe__run {}');
    expect(result).toMatchObject({ is_error: true, output: 'tool probe__run is not available' });
    expect(existsSync(marker)).toBe(false);
  });
});

describe('a catalogued stdio server', () => {
  let agentId: string;

  beforeAll(async () => {
    await registerMcpServer(deployment.environment.env, 'reporter', await stdioServerCommand(), [
      'REGION',
      'API_TOKEN',
    ]);
    const created = await client.post('/agents', {
      name: 'reporter',
      tools: ['mcp:local'],
      mcp: [{ name: 'local', server: 'reporter', env: { REGION: 'eu', API_TOKEN: 'tok-allowed' } }],
    });
    expect(created.status).toBe(200);
    agentId = created.body.id;
  });

  it('is started with the minimal environment and the variables its entry allows, nothing of the worker', async () => {
    const result = await toolResult(agentId, '/tool local__env {}');
    expect(result.is_error).toBe(false);
    const env = (result.output as { env: Record<string, string> }).env;
    expect(env).toMatchObject({ REGION: 'eu', API_TOKEN: 'tok-allowed' });
    for (const name of Object.keys(env)) expect([...MINIMAL_ENV, 'REGION', 'API_TOKEN']).toContain(name);
    expect(JSON.stringify(env)).not.toContain(deployment.environment.databaseUrl);
  });

  it('refuses a variable its entry does not allow (422 at env), and an unknown server (422 at server)', async () => {
    const refused = await client.post('/agents', {
      name: 'greedy',
      mcp: [
        { name: 'local', server: 'reporter', env: { REGION: 'eu', NODE_OPTIONS: '--require /tmp/x.js' } },
        { name: 'other', server: 'not-catalogued' },
      ],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'mcp', 0, 'env'],
        msg: 'Value error, reporter allows only these variables: REGION, API_TOKEN',
        input: ['NODE_OPTIONS'],
        ctx: { error: {} },
      },
      {
        type: 'value_error',
        loc: ['body', 'mcp', 1, 'server'],
        msg: 'Value error, no MCP server of this name in the catalogue',
        input: 'not-catalogued',
        ctx: { error: {} },
      },
    ]);
  });

  it('gets only what its entry allows now: a variable the operator withdrew is no longer given', async () => {
    await registerMcpServer(deployment.environment.env, 'reporter', await stdioServerCommand(), ['REGION']);
    const result = await toolResult(agentId, '/tool local__env {}');
    const env = (result.output as { env: Record<string, string> }).env;
    expect(env.REGION).toBe('eu');
    expect(env).not.toHaveProperty('API_TOKEN');
  });

  it('stops being offered once the operator removes it', async () => {
    await admin(deployment.environment.env, ['mcp:remove', '--name', 'reporter']);
    const result = await toolResult(agentId, '/tool local__echo {"text":"x"}');
    expect(result).toMatchObject({ is_error: true, output: 'tool local__echo is not available' });
  });
});
