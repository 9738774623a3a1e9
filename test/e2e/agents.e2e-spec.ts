import { Client } from 'pg';
import { useDeployment } from '../support/deployment';
import { registerMcpServer } from '../factories/admin';
import { api } from '../support/http';

/** Agents over HTTP (CONTRACTS §15): the organization's service key manages its own agents, and only them. */
describe('agents API', () => {
  const deployment = useDeployment({ env: { LOG_LEVEL: 'debug' } });
  let client: ReturnType<typeof api>;
  let other: ReturnType<typeof api>;

  beforeAll(async () => {
    const [otherOrg] = await Promise.all([
      deployment.createOrg(),
      registerMcpServer(deployment.environment.env, 'db', { command: 'node', args: ['db.js'] }, ['DB_TOKEN']),
    ]);
    client = deployment.client();
    other = deployment.client(otherOrg.key);
  });

  const MCP = [
    { name: 'db', server: 'db', env: { DB_TOKEN: 'env-secret-123' } },
    { name: 'gh', url: 'https://93.184.216.34/gh', headers: { authorization: 'Bearer header-secret-456' } },
  ];

  it('creates an agent with every field, flat, and never returns or stores MCP secrets in clear', async () => {
    // Every field but the MCP servers, which come back without their secrets: answered as they were sent.
    const fields = {
      name: 'helper',
      instructions: 'Be brief.',
      description: 'Answers questions about the handbook.',
      model: 'openai:gpt-4o-mini',
      memory_namespace: 'notes',
      token_budget: 5000,
      tools: ['clock', 'mcp:db'],
      temperature: 0.2,
      max_output_tokens: 256,
    };
    const created = await client.post('/agents', { ...fields, mcp: MCP });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      ...fields,
      id: expect.any(String),
      tokens_used: 0,
      archived: false,
      mcp: [
        { name: 'db', server: 'db', env_names: ['DB_TOKEN'] },
        { name: 'gh', url: 'https://93.184.216.34/gh', header_names: ['authorization'] },
      ],
    });
    const fetched = await client.get(`/agents/${created.body.id}`);
    expect(fetched.body).toEqual(created.body);
    for (const secret of ['env-secret-123', 'header-secret-456']) {
      expect(JSON.stringify(created.body)).not.toContain(secret);
      expect(JSON.stringify(fetched.body)).not.toContain(secret);
      expect(deployment.gateway.output).not.toContain(secret);
    }
    const db = new Client({ connectionString: deployment.environment.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT mcp_servers::text AS stored FROM agents WHERE id = $1', [
        created.body.id,
      ]);
      expect(rows[0].stored).not.toContain('env-secret-123');
      expect(rows[0].stored).not.toContain('header-secret-456');
      expect(rows[0].stored).toContain('"sealed"');
    } finally {
      await db.end();
    }
  });

  it('defaults to the builtin model and every tool', async () => {
    const created = await client.post('/agents', { name: 'plain' });
    expect(created.body).toMatchObject({
      description: '',
      model: 'builtin',
      tools: null,
      mcp: [],
      temperature: null,
      max_output_tokens: null,
    });
  });

  it('updates only the fields given; null clears; a new mcp list replaces the old one', async () => {
    const { body: agent } = await client.post('/agents', {
      name: 'a',
      instructions: 'Keep me.',
      tools: ['web'],
    });
    const tooLong = await client.put(`/agents/${agent.id}`, { description: 'd'.repeat(501) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail[0].loc).toEqual(['body', 'description']);
    const updated = await client.put(`/agents/${agent.id}`, {
      name: 'b',
      description: 'd'.repeat(500),
      tools: null,
      mcp: [{ name: 'x', url: 'http://93.184.216.34:9/mcp' }],
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: agent.id,
      name: 'b',
      instructions: 'Keep me.',
      description: 'd'.repeat(500),
      tools: null,
      mcp: [{ name: 'x', url: 'http://93.184.216.34:9/mcp', header_names: [] }],
    });
  });

  it('lists the organization’s active agents; DELETE archives (204) and the agent is gone for chat', async () => {
    const { body: agent } = await client.post('/agents', { name: 'short-lived' });
    expect((await client.get('/agents')).body.agents.map((a: { id: string }) => a.id)).toContain(agent.id);
    expect((await client.delete(`/agents/${agent.id}`)).status).toBe(204);
    expect((await client.get('/agents')).body.agents.map((a: { id: string }) => a.id)).not.toContain(
      agent.id,
    );
    expect(await client.get(`/agents/${agent.id}`)).toMatchObject({
      status: 404,
      body: { detail: 'Agent not found' },
    });
    const chat = await client.post('/chat', {
      message: { content: 'hi' },
      options: { agent_id: agent.id, user_id: 'u1' },
    });
    expect(chat).toMatchObject({ status: 404, body: { detail: 'Agent not found' } });
  });

  it('answers 404 for another organization’s agent on every call, and lists none of them', async () => {
    const { body: agent } = await client.post('/agents', { name: 'private' });
    expect((await other.get(`/agents/${agent.id}`)).status).toBe(404);
    expect((await other.put(`/agents/${agent.id}`, { name: 'stolen' })).status).toBe(404);
    expect((await other.delete(`/agents/${agent.id}`)).status).toBe(404);
    expect((await other.get('/agents')).body.agents).toEqual([]);
    expect((await client.get(`/agents/${agent.id}`)).body).toMatchObject({
      name: 'private',
      archived: false,
    });
  });

  it('answers 422 in the Pydantic shape for bad fields, with where each was', async () => {
    const bad = await client.post('/agents', {
      name: '',
      model: 'gpt',
      tools: ['shell'],
      temperature: 3,
      mcp: [{ name: 'both', server: 'db', url: 'http://93.184.216.34/mcp' }],
    });
    expect(bad.status).toBe(422);
    const locs = bad.body.detail.map((issue: { loc: unknown[] }) => issue.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining(['body.name', 'body.model', 'body.tools.0', 'body.temperature']),
    );
    const shape = await client.post('/agents', {
      name: 'x',
      mcp: [{ name: 'both', server: 'db', url: 'http://93.184.216.34/mcp', headers: { a: 'b' } }],
    });
    expect(shape.status).toBe(422);
    expect(shape.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'mcp', 0],
        msg: 'Value error, give exactly one of server (a catalogued stdio server) or url (HTTP)',
        input: 'both',
        ctx: { error: {} },
      },
    ]);
    expect((await client.get('/agents/not-a-uuid')).status).toBe(422);
  });

  it('answers 401 without a key', async () => {
    expect((await api(deployment.url).get('/agents')).status).toBe(401);
  });
});
