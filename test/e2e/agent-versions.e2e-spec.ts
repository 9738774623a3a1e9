import { userInfo } from 'node:os';
import { useDeployment } from '../support/deployment';
import { admin, adminFails, OrgFixture } from '../factories/admin';
import { Line, numbered, OpenStream } from './stream.support';

/**
 * Agent versions on real processes (CONTRACTS §23): every create, change and restore of an agent stores a version
 * with its whole configuration; a reply pinned to a version runs that configuration, and every reply names the
 * version it ran on its `message.started` line and in `events`.
 */
const deployment = useDeployment({ workers: 1, timeoutMs: 120000 });
let otherOrg: OrgFixture;

beforeAll(async () => {
  otherOrg = await deployment.createOrg();
});

const client = (fixture = deployment.org) => deployment.client(fixture.key);
const byKey = () => ({ type: 'key', id: deployment.org.keyId });

interface Version {
  version: number;
  created_at: string;
  actor: { type: string; id: string };
  restored_from: number | null;
  config: Record<string, unknown>;
}

/** A message asking for `skill_read`: a tool only the versions that list it may call. */
const ASKS_FOR_SKILL = '/tool skill_read {"name": "nothing-here"}';
const NOT_AVAILABLE = 'tool skill_read is not available';

/** The reply's stream to its end, and the `tool.result` of its one tool call. */
async function replyLines(replyId: string): Promise<{ lines: Line[]; toolOutput: unknown }> {
  const lines = numbered(
    await new OpenStream(`${deployment.url}/chat/messages/${replyId}/stream`, deployment.org.key).all(),
  );
  expect(lines.at(-1)).toMatchObject({ type: 'message.completed', message: { status: 'success' } });
  return { lines, toolOutput: lines.find((line) => line.type === 'tool.result')?.output };
}

async function startChat(
  agentId: string,
  agentVersion?: number,
): Promise<{ threadId: string; replyId: string }> {
  const started = await client().post('/chat', {
    message: { content: ASKS_FOR_SKILL },
    options: { agent_id: agentId, user_id: 'alice', ...(agentVersion && { agent_version: agentVersion }) },
  });
  expect(started.status).toBe(200);
  return { threadId: started.body.id, replyId: started.body.messages[1].id };
}

async function versionsOf(agentId: string): Promise<Version[]> {
  const listed = await client().get<Version[]>(`/agents/${agentId}/versions`);
  expect(listed.status).toBe(200);
  return listed.body;
}

it('stores a version on create, change and restore, newest first, with the whole configuration', async () => {
  const created = await client().post('/agents', { name: 'versioned', instructions: 'v1', tools: ['clock'] });
  expect(created.status).toBe(200);
  const id = created.body.id as string;
  expect(await versionsOf(id)).toEqual([
    {
      version: 1,
      created_at: expect.any(String),
      actor: byKey(),
      restored_from: null,
      config: expect.objectContaining({
        name: 'versioned',
        instructions: 'v1',
        tools: ['clock'],
        model: 'builtin',
      }),
    },
  ]);
  // The configuration is the agent as GET shows it, without its identity and bookkeeping.
  const [first] = await versionsOf(id);
  const {
    id: _id,
    organization_id: _org,
    tokens_used: _used,
    archived: _archived,
    created_at: _at,
    ...config
  } = created.body as Record<string, unknown>;
  expect(first.config).toEqual(config);

  // A request that changes nothing stores no version.
  expect((await client().put(`/agents/${id}`, {})).status).toBe(200);
  expect(await versionsOf(id)).toHaveLength(1);

  expect(
    (await client().put(`/agents/${id}`, { instructions: 'v2', tools: ['clock', 'skill_read'] })).status,
  ).toBe(200);
  const restored = await client().post<Version>(`/agents/${id}/versions/1/restore`);
  expect(restored.status).toBe(200);
  expect(restored.body).toMatchObject({ version: 3, restored_from: 1, actor: byKey() });
  expect(restored.body.config).toEqual({ ...first.config });

  const agent = await client().get(`/agents/${id}`);
  expect(agent.body).toMatchObject({ instructions: 'v1', tools: ['clock'] });
  expect((await versionsOf(id)).map((version) => [version.version, version.config.instructions])).toEqual([
    [3, 'v1'],
    [2, 'v2'],
    [1, 'v1'],
  ]);
  const two = await client().get<Version>(`/agents/${id}/versions/2`);
  expect(two.status).toBe(200);
  expect(two.body.config).toMatchObject({ instructions: 'v2', tools: ['clock', 'skill_read'] });

  // Paged as GET /chat: a full page carries the cursor of the next.
  const page = await client().get<Version[]>(`/agents/${id}/versions?limit=2`);
  expect(page.body.map((version) => version.version)).toEqual([3, 2]);
  const next = await client().get<Version[]>(
    `/agents/${id}/versions?limit=2&before=${page.headers.get('x-next-cursor')}`,
  );
  expect(next.body.map((version) => version.version)).toEqual([1]);
  expect(next.headers.get('x-next-cursor')).toBeNull();

  // Each version has its audit entry.
  const audit =
    await client().get<{ action: string; target: { id: string }; details: Record<string, unknown> }[]>(
      '/audit-events?limit=100',
    );
  expect(
    audit.body
      .filter((entry) => entry.target.id === id)
      .reverse()
      .map((entry) => [entry.action, entry.details.version]),
  ).toEqual([
    ['agent.created', 1],
    ['agent.updated', 2],
    ['agent.restored', 3],
  ]);
});

it('answers 404 for an unknown version or another organization’s agent, and 422 for a version that is no number', async () => {
  const created = await client().post('/agents', { name: 'private' });
  const id = created.body.id as string;
  expect((await client().get(`/agents/${id}/versions/9`)).body).toEqual({
    detail: 'Agent version not found',
  });
  expect((await client().post(`/agents/${id}/versions/9/restore`)).status).toBe(404);
  expect((await client(otherOrg).get(`/agents/${id}/versions`)).body).toEqual({ detail: 'Agent not found' });
  expect((await client(otherOrg).get(`/agents/${id}/versions/1`)).status).toBe(404);
  expect((await client(otherOrg).post(`/agents/${id}/versions/1/restore`)).status).toBe(404);
  const bad = await client().get(`/agents/${id}/versions/first`);
  expect(bad.status).toBe(422);
  expect(bad.body.detail[0]).toMatchObject({ loc: ['path', 'version'], type: 'int_parsing' });
});

it('runs a pinned reply with its version, a follow-up with the latest unless pinned, and records the version', async () => {
  const created = await client().post('/agents', { name: 'pinned', tools: ['clock'] });
  const id = created.body.id as string;
  await client().put(`/agents/${id}`, { tools: ['clock', 'skill_read'] });

  // Latest (2): skill_read is one of its tools, so it runs (and finds no such skill).
  const latest = await startChat(id);
  const latestRun = await replyLines(latest.replyId);
  expect(latestRun.lines[0]).toMatchObject({ type: 'message.started', agent_version: 2 });
  expect(latestRun.toolOutput).not.toBe(NOT_AVAILABLE);

  // Pinned to 1: the tool is not the agent's there.
  const pinned = await startChat(id, 1);
  const pinnedRun = await replyLines(pinned.replyId);
  expect(pinnedRun.lines[0]).toMatchObject({ type: 'message.started', agent_version: 1 });
  expect(pinnedRun.toolOutput).toBe(NOT_AVAILABLE);
  const thread = await client().get(`/chat/${pinned.threadId}?user_id=alice`);
  expect(thread.body.messages[1].events[0]).toMatchObject({ type: 'message.started', agent_version: 1 });

  // The thread's follow-up runs the latest again; pinned again, the version asked for.
  const followUp = await client().post(`/chat/${pinned.threadId}`, { message: { content: ASKS_FOR_SKILL } });
  const followUpRun = await replyLines(followUp.body.id);
  expect(followUpRun.lines[0]).toMatchObject({ agent_version: 2 });
  expect(followUpRun.toolOutput).not.toBe(NOT_AVAILABLE);
  const pinnedAgain = await client().post(`/chat/${pinned.threadId}`, {
    message: { content: ASKS_FOR_SKILL },
    options: { agent_version: 1 },
  });
  expect((await replyLines(pinnedAgain.body.id)).toolOutput).toBe(NOT_AVAILABLE);

  // An unknown version: 422 at the field, and nothing stored.
  for (const [path, body] of [
    ['/chat', { message: { content: 'hi' }, options: { agent_id: id, user_id: 'alice', agent_version: 7 } }],
    [`/chat/${pinned.threadId}`, { message: { content: 'hi' }, options: { agent_version: 7 } }],
  ] as const) {
    const refused = await client().post(path, body);
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'options', 'agent_version'], type: 'value_error', input: 7 }),
    ]);
  }
  const after = await client().get(`/chat/${pinned.threadId}?user_id=alice`);
  expect(after.body.messages).toHaveLength(6);
});

it('versions the admin CLI’s changes, lists and restores them with the operator as actor', async () => {
  const agent = await admin<{ id: string }>(deployment.environment.env, [
    'agents:create',
    '--org',
    deployment.org.org,
    '--name',
    'cli-versioned',
    '--instructions',
    'first',
  ]);
  await admin(deployment.environment.env, ['agents:update', '--id', agent.id, '--instructions', 'second']);
  const restored = await admin<Version>(deployment.environment.env, [
    'agents:restore',
    '--id',
    agent.id,
    '--version',
    '1',
  ]);
  const operator = { type: 'admin', id: userInfo().username };
  expect(restored).toMatchObject({
    version: 3,
    restored_from: 1,
    actor: operator,
    config: { instructions: 'first' },
  });
  const listed = await admin<{ versions: Version[] }>(deployment.environment.env, [
    'agents:versions',
    '--id',
    agent.id,
  ]);
  expect(listed.versions.map((version) => [version.version, version.config.instructions])).toEqual([
    [3, 'first'],
    [2, 'second'],
    [1, 'first'],
  ]);
  const shown = await admin<Version>(deployment.environment.env, [
    'agents:version',
    '--id',
    agent.id,
    '--version',
    '2',
  ]);
  expect(shown).toMatchObject({ version: 2, actor: operator, config: { instructions: 'second' } });
  const refused = await adminFails(deployment.environment.env, [
    'agents:version',
    '--id',
    agent.id,
    '--version',
    'two',
  ]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('--version');
});
