import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { QUEUE } from '@app/contracts';
import { admin, AgentFixture, createAgent, createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { postUpload } from '../support/uploads';
import { AppProcess, startGateway } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';

/**
 * The chat endpoints against a real gateway with no worker: replies stay pending, which is what POST /chat
 * promises to answer with (CONTRACTS §4). Spec rules, limits (with their exact 422), scoping and the job.
 */
let environment: TestEnvironment;
let storageDir: string;
let gateway: AppProcess;
let queue: Queue;
let redis: Redis;
let org: OrgFixture;
let other: OrgFixture;
let agent: AgentFixture;
let secondAgent: AgentFixture;
let namespacedAgent: AgentFixture;
let archivedAgent: AgentFixture;
let foreignAgent: AgentFixture;
let client: ReturnType<typeof api>;
let otherClient: ReturnType<typeof api>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const THREAD_KEYS = ['created_at', 'id', 'inception', 'live', 'messages', 'name', 'project_id', 'starred'];
const SUMMARY_KEYS = ['agent', 'created_at', 'id', 'live', 'name', 'starred'];
const MESSAGE_KEYS = [
  'agent',
  'content',
  'error_code',
  'events',
  'files',
  'id',
  'live',
  'questions',
  'role',
  'status',
  'structured_output',
  'thread_id',
];

beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), 'parley-chat-'));
  environment = await createTestEnvironment({ STORAGE_DIR: storageDir });
  gateway = await startGateway(environment.env);
  [org, other] = await Promise.all([createOrg(environment.env), createOrg(environment.env)]);
  [agent, secondAgent, namespacedAgent, archivedAgent, foreignAgent] = await Promise.all([
    createAgent(environment.env, org.org),
    createAgent(environment.env, org.org),
    createAgent(environment.env, org.org, ['--memory-namespace', 'agent-ns']),
    createAgent(environment.env, org.org),
    createAgent(environment.env, other.org),
  ]);
  await admin(environment.env, ['agents:archive', '--id', archivedAgent.id]);
  client = api(gateway.url!, org.key);
  otherClient = api(gateway.url!, other.key);
  redis = new Redis(environment.env.REDIS_URL!, { maxRetriesPerRequest: null });
  queue = new Queue(QUEUE.agentRun, { connection: redis, prefix: environment.redisPrefix });
});

afterAll(async () => {
  await queue?.close();
  redis?.disconnect();
  await gateway?.stop();
  await environment?.dispose();
  if (storageDir) await rm(storageDir, { recursive: true, force: true });
});

interface StartOptions {
  userId?: string;
  agentId?: string;
  content?: string;
  name?: string | null;
  extra?: Record<string, unknown>;
  options?: Record<string, unknown>;
  message?: Record<string, unknown>;
}

/** POST /chat with a valid body, changed where the test says. */
function start(input: StartOptions = {}) {
  return client.post('/chat', {
    ...(input.name !== undefined ? { name: input.name } : {}),
    message: { content: input.content ?? 'Hello agent', ...input.message },
    options: { agent_id: input.agentId ?? agent.id, user_id: input.userId ?? 'alice', ...input.options },
    ...input.extra,
  });
}

async function startOk(input: StartOptions = {}) {
  const response = await start(input);
  expect(response.status).toBe(200);
  return response.body;
}

/** A file uploaded by `userId` the way a client does it (CONTRACTS §8); its id is usable in file_ids. */
async function uploaded(userId = 'alice'): Promise<string> {
  const granted = await client.get(`/chat/files/upload?filename=a.txt&mimetype=text/plain&user_id=${userId}`);
  expect(granted.status).toBe(200);
  expect((await postUpload(granted.body, Buffer.from('some text'), 'a.txt')).status).toBe(204);
  return granted.body.fields['x-amz-meta-file-id'];
}

/** The one issue of a 422. */
function issueOf(response: { status: number; body: any }) {
  expect(response.status).toBe(422);
  expect(response.body.detail).toHaveLength(1);
  return response.body.detail[0];
}

const storedThread = async (id: string) =>
  (await queryDatabase<any>(environment.databaseUrl, 'SELECT * FROM threads WHERE id = $1', [id]))[0];

const storedMessages = (threadId: string) =>
  queryDatabase<any>(
    environment.databaseUrl,
    'SELECT * FROM messages WHERE thread_id = $1 ORDER BY position',
    [threadId],
  );

describe('POST /chat', () => {
  it('answers the full thread with the user message and the pending reply, oldest first', async () => {
    const response = await start({ content: 'What time is it?\nsecond line' });
    expect(response.status).toBe(200);
    const thread = response.body;
    expect(Object.keys(thread).sort()).toEqual(THREAD_KEYS);
    expect(thread).toMatchObject({
      name: 'What time is it?',
      live: true,
      starred: false,
      project_id: null,
      inception: 'conversational',
    });
    expect(thread.id).toMatch(UUID);
    expect(thread.created_at).toMatch(ISO_Z);
    const [question, reply] = thread.messages;
    expect(thread.messages).toHaveLength(2);
    expect(Object.keys(question).sort()).toEqual(MESSAGE_KEYS);
    expect(Object.keys(reply).sort()).toEqual(MESSAGE_KEYS);
    expect(question).toEqual({
      id: expect.stringMatching(UUID),
      thread_id: thread.id,
      role: 'user',
      content: 'What time is it?\nsecond line',
      error_code: null,
      questions: null,
      live: false,
      status: 'success',
      events: null,
      structured_output: null,
      files: [],
      agent: null,
    });
    expect(reply).toEqual({
      id: expect.stringMatching(UUID),
      thread_id: thread.id,
      role: 'assistant',
      content: '',
      error_code: null,
      questions: null,
      live: true,
      status: 'pending',
      events: null,
      structured_output: null,
      files: [],
      agent: { id: agent.id, name: agent.name },
    });
  });

  it('enqueues the run with the reply id as job id and ids only as data', async () => {
    const response = await start();
    const reply = response.body.messages[1];
    const job = await queue.getJob(reply.id);
    expect(job).toBeDefined();
    expect(job!.data).toEqual({
      messageId: reply.id,
      threadId: response.body.id,
      requestId: response.headers.get('x-request-id'),
    });
  });

  it('stores what the message carries, positions 0 and 1, and max_steps (server default 60)', async () => {
    const fileIds = [await uploaded(), await uploaded()];
    const thread = await startOk({
      name: 'Named',
      message: {
        file_ids: fileIds,
        source_ids: [1, 2],
        document_ids: ['d1'],
        disabled_tools: ['web', 'mcp:github'],
      },
      extra: { project_id: 'p-1' },
    });
    expect(thread.name).toBe('Named');
    expect(thread.project_id).toBe('p-1');
    const [question, reply] = await storedMessages(thread.id);
    expect(question).toMatchObject({
      position: 0,
      role: 'user',
      file_ids: fileIds,
      source_ids: [1, 2],
      document_ids: ['d1'],
      disabled_tools: ['web', 'mcp:github'],
      agent_id: null,
      reply_to_id: null,
    });
    expect(reply).toMatchObject({
      position: 1,
      role: 'assistant',
      agent_id: agent.id,
      reply_to_id: question.id,
      max_steps: 60,
      status: 'pending',
      live: true,
    });
    expect((await storedThread(thread.id)).user_id).toBe('alice');

    const capped = await startOk({ options: { max_steps: 3 } });
    expect((await storedMessages(capped.id))[1].max_steps).toBe(3);
  });

  it('derives the name from the first non-blank line, at most 80 characters', async () => {
    const long = 'x'.repeat(120);
    expect((await startOk({ content: `\n  ${long}\nmore` })).name).toBe('x'.repeat(80));
    expect((await startOk({ content: '  Hi there  \nmore', name: null })).name).toBe('Hi there');
  });

  it('accepts content of 30000 characters and refuses 30001', async () => {
    expect((await start({ content: 'a'.repeat(30000) })).status).toBe(200);
    const issue = issueOf(await start({ content: 'a'.repeat(30001) }));
    expect(issue).toMatchObject({
      loc: ['body', 'message', 'content'],
      type: 'string_too_long',
      msg: 'String should have at most 30000 characters',
      ctx: { max_length: 30000 },
    });
  });

  it('accepts 5 file ids and refuses 6 or duplicates', async () => {
    const five = await Promise.all(Array.from({ length: 5 }, () => uploaded()));
    expect((await start({ message: { file_ids: five } })).status).toBe(200);
    expect(issueOf(await start({ message: { file_ids: [...five, 'f'] } }))).toMatchObject({
      loc: ['body', 'message', 'file_ids'],
      type: 'too_long',
      ctx: { max_length: 5, actual_length: 6 },
    });
    expect(issueOf(await start({ message: { file_ids: ['a', 'a'] } }))).toMatchObject({
      loc: ['body', 'message', 'file_ids'],
      type: 'value_error',
    });
    expect(issueOf(await start({ message: { file_ids: ['a', 7] } }))).toMatchObject({
      loc: ['body', 'message', 'file_ids', 1],
      type: 'string_type',
    });
  });

  it('refuses a disabled tool that is neither web, company_documents nor mcp:*, at its index', async () => {
    expect((await start({ message: { disabled_tools: ['web', 'company_documents', 'mcp:x'] } })).status).toBe(
      200,
    );
    // Pydantic's smart union reports the item once per member, each under the member's tag.
    const refused = await start({ message: { disabled_tools: ['web', 'clock'] } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toMatchObject([
      {
        loc: ['body', 'message', 'disabled_tools', 1, "literal['web','company_documents']"],
        type: 'literal_error',
        input: 'clock',
      },
      {
        loc: ['body', 'message', 'disabled_tools', 1, 'constrained-str'],
        type: 'string_pattern_mismatch',
        input: 'clock',
      },
    ]);
    const notText = await start({ message: { disabled_tools: [3] } });
    expect(notText.status).toBe(422);
    expect(notText.body.detail).toMatchObject([
      {
        loc: ['body', 'message', 'disabled_tools', 0, "literal['web','company_documents']"],
        type: 'literal_error',
      },
      { loc: ['body', 'message', 'disabled_tools', 0, 'constrained-str'], type: 'string_type' },
    ]);
    expect(issueOf(await start({ message: { disabled_tools: 'web' } }))).toMatchObject({
      loc: ['body', 'message', 'disabled_tools'],
      type: 'list_type',
    });
  });

  it('checks the types of source_ids, document_ids, content, name and max_steps', async () => {
    expect((await start({ message: { source_ids: null, document_ids: null } })).status).toBe(200);
    expect(issueOf(await start({ message: { source_ids: [1, 'two'] } }))).toMatchObject({
      loc: ['body', 'message', 'source_ids', 1],
      type: 'int_parsing',
    });
    expect(issueOf(await start({ message: { document_ids: [1] } }))).toMatchObject({
      loc: ['body', 'message', 'document_ids', 0],
      type: 'string_type',
    });
    expect(issueOf(await start({ message: { content: 5 } }))).toMatchObject({
      loc: ['body', 'message', 'content'],
      type: 'string_type',
      msg: 'Input should be a valid string',
    });
    expect(issueOf(await start({ extra: { name: 12 } }))).toMatchObject({
      loc: ['body', 'name'],
      type: 'string_type',
    });
    expect(issueOf(await start({ options: { max_steps: 0 } }))).toMatchObject({
      loc: ['body', 'options', 'max_steps'],
      type: 'greater_than_equal',
      ctx: { ge: 1 },
    });
    expect(issueOf(await start({ options: { max_steps: 'many' } }))).toMatchObject({
      loc: ['body', 'options', 'max_steps'],
      type: 'int_parsing',
    });
    expect(issueOf(await start({ options: { max_steps: 1.5 } }))).toMatchObject({
      loc: ['body', 'options', 'max_steps'],
      type: 'int_from_float',
    });
  });

  it('requires message, content, options, agent_id and user_id', async () => {
    const missing = (loc: (string | number)[]) => ({ loc, type: 'missing', msg: 'Field required' });
    expect(
      issueOf(await client.post('/chat', { options: { agent_id: agent.id, user_id: 'u' } })),
    ).toMatchObject(missing(['body', 'message']));
    expect(issueOf(await client.post('/chat', { message: { content: 'x' } }))).toMatchObject(
      missing(['body', 'options']),
    );
    expect(issueOf(await start({ message: { content: undefined } }))).toMatchObject(
      missing(['body', 'message', 'content']),
    );
    expect(
      issueOf(await client.post('/chat', { message: { content: 'x' }, options: { agent_id: agent.id } })),
    ).toMatchObject(missing(['body', 'options', 'user_id']));
    expect(
      issueOf(await client.post('/chat', { message: { content: 'x' }, options: { user_id: 'u' } })),
    ).toMatchObject(missing(['body', 'options', 'agent_id']));
    expect(issueOf(await start({ extra: { message: 'hello' } }))).toMatchObject({
      loc: ['body', 'message'],
      type: 'model_attributes_type',
    });
  });

  it('accepts a namespace of 128 characters and refuses 129', async () => {
    expect((await start({ options: { memory_namespace: 'n'.repeat(128) } })).status).toBe(200);
    expect(issueOf(await start({ options: { memory_namespace: 'n'.repeat(129) } }))).toMatchObject({
      loc: ['body', 'options', 'memory_namespace'],
      type: 'string_too_long',
      ctx: { max_length: 128 },
    });
  });

  it('answers 404 Agent not found for an unknown, malformed, foreign or archived agent', async () => {
    for (const agentId of [randomUUID(), 'not-a-uuid', foreignAgent.id, archivedAgent.id]) {
      const response = await start({ agentId });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Agent not found' });
    }
  });

  it('binds the namespace at the start: given, else the agent one, else none (spec 4.2 rules 1-3)', async () => {
    const given = await startOk({ agentId: namespacedAgent.id, options: { memory_namespace: 'mine' } });
    const inherited = await startOk({ agentId: namespacedAgent.id });
    const none = await startOk();
    expect((await storedThread(given.id)).memory_namespace).toBe('mine');
    expect((await storedThread(inherited.id)).memory_namespace).toBe('agent-ns');
    expect((await storedThread(none.id)).memory_namespace).toBeNull();
  });
});

describe('POST /chat/{thread_id}', () => {
  it('answers the bare pending reply, stores it after the new user message and enqueues it', async () => {
    const thread = await startOk();
    const response = await client.post(`/chat/${thread.id}`, {
      message: { content: 'And now?', disabled_tools: ['web'] },
      options: { max_steps: 7 },
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(MESSAGE_KEYS);
    expect(response.body).toMatchObject({
      thread_id: thread.id,
      role: 'assistant',
      status: 'pending',
      live: true,
      agent: { id: agent.id, name: agent.name },
    });
    const stored = await storedMessages(thread.id);
    expect(stored.map((message) => [message.position, message.role])).toEqual([
      [0, 'user'],
      [1, 'assistant'],
      [2, 'user'],
      [3, 'assistant'],
    ]);
    expect(stored[2]).toMatchObject({ content: 'And now?', disabled_tools: ['web'] });
    expect(stored[3]).toMatchObject({ id: response.body.id, reply_to_id: stored[2].id, max_steps: 7 });
    const job = await queue.getJob(response.body.id);
    expect(job?.data).toEqual({
      messageId: response.body.id,
      threadId: thread.id,
      requestId: response.headers.get('x-request-id'),
    });

    const full = await client.get(`/chat/${thread.id}`);
    expect(full.body.messages.map((message: { id: string }) => message.id)).toEqual(stored.map((m) => m.id));
    expect((await client.post(`/chat/${thread.id}`, { message: { content: 'x' } })).status).toBe(200);
    expect((await storedMessages(thread.id))[5].max_steps).toBe(60);
  });

  it('keeps positions unique under concurrent follow-ups', async () => {
    const thread = await startOk();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        client.post(`/chat/${thread.id}`, { message: { content: `m${i}` } }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(6).fill(200));
    const stored = await storedMessages(thread.id);
    expect(stored.map((message) => message.position)).toEqual(Array.from({ length: 14 }, (_, i) => i));
    for (const reply of stored.filter((message) => message.role === 'assistant')) {
      const question = stored.find((message) => message.id === reply.reply_to_id);
      expect(question.position).toBe(reply.position - 1);
    }
  });

  it('cannot change the namespace (spec 4.2 rule 4)', async () => {
    const thread = await startOk({ options: { memory_namespace: 'bound' } });
    const changed = await client.post(`/chat/${thread.id}`, {
      message: { content: 'x' },
      options: { memory_namespace: 'other' },
    });
    expect(issueOf(changed)).toMatchObject({ loc: ['body', 'options', 'memory_namespace'], input: 'other' });
    const unbound = await startOk();
    expect(
      issueOf(
        await client.post(`/chat/${unbound.id}`, {
          message: { content: 'x' },
          options: { memory_namespace: 'n' },
        }),
      ).loc,
    ).toEqual(['body', 'options', 'memory_namespace']);
    const same = await client.post(`/chat/${thread.id}`, {
      message: { content: 'x' },
      options: { memory_namespace: 'bound' },
    });
    expect(same.status).toBe(200);
    expect((await storedThread(thread.id)).memory_namespace).toBe('bound');
    expect((await storedMessages(thread.id)).length).toBe(4);
  });

  it('validates the message like POST /chat', async () => {
    const thread = await startOk();
    expect(
      issueOf(await client.post(`/chat/${thread.id}`, { message: { content: 'a'.repeat(30001) } })),
    ).toMatchObject({
      loc: ['body', 'message', 'content'],
      type: 'string_too_long',
    });
    expect(issueOf(await client.post(`/chat/${thread.id}`, {}))).toMatchObject({
      loc: ['body', 'message'],
      type: 'missing',
    });
    expect(
      issueOf(
        await client.post(`/chat/${thread.id}`, { message: { content: 'x' }, options: { max_steps: 0 } }),
      ),
    ).toMatchObject({ loc: ['body', 'options', 'max_steps'], type: 'greater_than_equal' });
  });
});

describe('thread access', () => {
  it('answers 422 at ["path", "thread_id"] for an id that is not a UUID', async () => {
    for (const response of [
      await client.get('/chat/nope'),
      await client.put('/chat/nope', { starred: true }),
      await client.delete('/chat/nope'),
      await client.post('/chat/nope', { message: { content: 'x' } }),
    ]) {
      expect(issueOf(response)).toMatchObject({
        loc: ['path', 'thread_id'],
        type: 'uuid_parsing',
        input: 'nope',
      });
    }
  });

  it('answers 404 Thread not found for a thread of another user or organization, or none', async () => {
    const thread = await startOk({ userId: 'owner' });
    const cases = [
      { api: client, query: '?user_id=intruder', options: { user_id: 'intruder' } },
      { api: otherClient, query: '', options: {} },
      { api: otherClient, query: '?user_id=owner', options: { user_id: 'owner' } },
    ];
    for (const { api: caller, query, options } of cases) {
      for (const response of [
        await caller.get(`/chat/${thread.id}${query}`),
        await caller.put(`/chat/${thread.id}`, { starred: true, options }),
        await caller.put(`/chat/${thread.id}${query}`, { starred: true }),
        await caller.post(`/chat/${thread.id}`, { message: { content: 'x' }, options }),
        await caller.post(`/chat/${thread.id}${query}`, { message: { content: 'x' } }),
        await caller.delete(`/chat/${thread.id}${query}`),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ detail: 'Thread not found' });
      }
    }
    expect((await client.get(`/chat/${randomUUID()}`)).status).toBe(404);
    // Nothing was changed or added by the refused calls.
    expect((await storedThread(thread.id)).starred).toBe(false);
    expect((await storedMessages(thread.id)).length).toBe(2);
    // The owner, named or not, sees it.
    expect((await client.get(`/chat/${thread.id}?user_id=owner`)).status).toBe(200);
    expect((await client.get(`/chat/${thread.id}`)).status).toBe(200);
  });

  it('renders the agent of a reply as ARCHIVED once the agent is archived', async () => {
    const temporary = await createAgent(environment.env, org.org);
    const thread = await startOk({ agentId: temporary.id });
    await admin(environment.env, ['agents:archive', '--id', temporary.id]);
    const full = await client.get(`/chat/${thread.id}`);
    expect(full.body.messages.map((message: { agent: unknown }) => message.agent)).toEqual([
      null,
      'ARCHIVED',
    ]);
    const followUp = await client.post(`/chat/${thread.id}`, { message: { content: 'x' } });
    expect(followUp.status).toBe(404);
    expect(followUp.body).toEqual({ detail: 'Agent not found' });
  });
});

describe('GET /chat', () => {
  it('lists the user threads newest first as summaries, with limit and agent filter', async () => {
    const user = `lister-${randomUUID()}`;
    const first = await startOk({ userId: user, name: 'first' });
    const second = await startOk({ userId: user, name: 'second', agentId: secondAgent.id });
    const third = await startOk({ userId: user, name: 'third' });
    await startOk({ userId: `${user}-other`, name: 'not mine' });

    const all = await client.get(`/chat?user_id=${user}`);
    expect(all.status).toBe(200);
    expect(all.body.map((thread: { id: string }) => thread.id)).toEqual([third.id, second.id, first.id]);
    expect(Object.keys(all.body[0]).sort()).toEqual(SUMMARY_KEYS);
    expect(all.body[1]).toEqual({
      id: second.id,
      name: 'second',
      created_at: second.created_at,
      live: true,
      agent: { id: secondAgent.id, name: secondAgent.name },
      starred: false,
    });

    const limited = await client.get(`/chat?user_id=${user}&limit=2`);
    expect(limited.body.map((thread: { id: string }) => thread.id)).toEqual([third.id, second.id]);
    const one = await client.get(`/chat?user_id=${user}&agent_ids=${secondAgent.id}`);
    expect(one.body.map((thread: { id: string }) => thread.id)).toEqual([second.id]);
    const both = await client.get(`/chat?user_id=${user}&agent_ids=${secondAgent.id}&agent_ids=${agent.id}`);
    expect(both.body).toHaveLength(3);
    const unknownAgent = '0190a5b2-4c6e-7d1f-8a2b-3c4d5e6f7a8e';
    expect((await client.get(`/chat?user_id=${user}&agent_ids=${unknownAgent}`)).body).toEqual([]);
    // A value that is not an agent id, a comma list included, is a 422 rather than an empty page.
    const comma = await client.get(`/chat?user_id=${user}&agent_ids=${secondAgent.id},${agent.id}`);
    expect(comma.status).toBe(422);
    expect(comma.body.detail).toEqual([
      expect.objectContaining({ loc: ['query', 'agent_ids', 0], type: 'uuid_parsing' }),
    ]);
    expect((await otherClient.get(`/chat?user_id=${user}`)).body).toEqual([]);
  });

  it('leaves archived threads out and reports live from the messages', async () => {
    const user = `archiver-${randomUUID()}`;
    const kept = await startOk({ userId: user });
    const archived = await startOk({ userId: user });
    expect((await client.delete(`/chat/${archived.id}`)).status).toBe(204);
    const listed = await client.get(`/chat?user_id=${user}`);
    expect(listed.body.map((thread: { id: string }) => thread.id)).toEqual([kept.id]);
    expect(listed.body[0].live).toBe(true);
    await queryDatabase(environment.databaseUrl, `UPDATE messages SET live = false WHERE thread_id = $1`, [
      kept.id,
    ]);
    expect((await client.get(`/chat?user_id=${user}`)).body[0].live).toBe(false);
  });

  it('enforces limit 1..100, at most 10 agent_ids and a required user_id', async () => {
    expect((await client.get('/chat?user_id=u&limit=100')).status).toBe(200);
    expect(issueOf(await client.get('/chat?user_id=u&limit=101'))).toMatchObject({
      loc: ['query', 'limit'],
      type: 'less_than_equal',
      ctx: { le: 100 },
    });
    expect(issueOf(await client.get('/chat?user_id=u&limit=0'))).toMatchObject({
      loc: ['query', 'limit'],
      type: 'greater_than_equal',
      ctx: { ge: 1 },
    });
    expect(issueOf(await client.get('/chat?user_id=u&limit=ten'))).toMatchObject({
      loc: ['query', 'limit'],
      type: 'int_parsing',
    });
    const ids = (n: number) => Array.from({ length: n }, () => `agent_ids=${randomUUID()}`).join('&');
    expect((await client.get(`/chat?user_id=u&${ids(10)}`)).status).toBe(200);
    expect(issueOf(await client.get(`/chat?user_id=u&${ids(11)}`))).toMatchObject({
      loc: ['query', 'agent_ids'],
      type: 'too_long',
      ctx: { max_length: 10, actual_length: 11 },
    });
    expect(issueOf(await client.get('/chat?limit=5'))).toMatchObject({
      loc: ['query', 'user_id'],
      type: 'missing',
    });
  });

  it('defaults to 20 threads', async () => {
    const user = `many-${randomUUID()}`;
    for (let i = 0; i < 21; i += 1) await startOk({ userId: user });
    expect((await client.get(`/chat?user_id=${user}`)).body).toHaveLength(20);
  });
});

describe('PUT /chat/{thread_id}', () => {
  it('renames and stars, answering the summary', async () => {
    const thread = await startOk({ userId: 'editor' });
    const renamed = await client.put(`/chat/${thread.id}?user_id=editor`, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      id: thread.id,
      name: 'Renamed',
      created_at: thread.created_at,
      live: true,
      agent: { id: agent.id, name: agent.name },
      starred: false,
    });
    const starred = await client.put(`/chat/${thread.id}`, { starred: true, options: { user_id: 'editor' } });
    expect(starred.body).toMatchObject({ name: 'Renamed', starred: true });
    const full = await client.get(`/chat/${thread.id}`);
    expect(full.body).toMatchObject({ name: 'Renamed', starred: true });
    expect((await client.put(`/chat/${thread.id}`, { starred: false })).body.starred).toBe(false);
  });

  it('validates name (1..200) and starred', async () => {
    const thread = await startOk();
    expect((await client.put(`/chat/${thread.id}`, { name: 'n'.repeat(200) })).status).toBe(200);
    expect(issueOf(await client.put(`/chat/${thread.id}`, { name: 'n'.repeat(201) }))).toMatchObject({
      loc: ['body', 'name'],
      type: 'string_too_long',
    });
    expect(issueOf(await client.put(`/chat/${thread.id}`, { name: '' }))).toMatchObject({
      loc: ['body', 'name'],
      type: 'string_too_short',
    });
    // Lax like Pydantic: 'yes' is true, 'maybe' is no boolean.
    expect((await client.put(`/chat/${thread.id}`, { starred: 'yes' })).body.starred).toBe(true);
    expect(issueOf(await client.put(`/chat/${thread.id}`, { starred: 'maybe' }))).toMatchObject({
      loc: ['body', 'starred'],
      type: 'bool_parsing',
    });
  });
});

describe('DELETE /chat/{thread_id}', () => {
  it('archives with 204 and no body, cancels the pending reply, then answers 404 to every call', async () => {
    const thread = await startOk({ userId: 'deleter' });
    const response = await fetch(`${gateway.url}/chat/${thread.id}?user_id=deleter`, {
      method: 'DELETE',
      headers: { 'x-service-token': org.key },
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');

    expect((await storedThread(thread.id)).archived_at).not.toBeNull();
    const [question, reply] = await storedMessages(thread.id);
    expect(question.status).toBe('success');
    expect(reply).toMatchObject({ status: 'cancelled', live: false });
    expect(reply.completed_at).not.toBeNull();

    for (const after of [
      await client.get(`/chat/${thread.id}`),
      await client.put(`/chat/${thread.id}`, { starred: true }),
      await client.post(`/chat/${thread.id}`, { message: { content: 'x' } }),
      await client.delete(`/chat/${thread.id}`),
    ]) {
      expect(after.status).toBe(404);
      expect(after.body).toEqual({ detail: 'Thread not found' });
    }
    expect((await storedMessages(thread.id)).length).toBe(2);
  });
});
