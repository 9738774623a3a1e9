import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { useDeployment } from '../support/deployment';
import { api } from '../support/http';
import { queryDatabase } from '../support/test-environment';

/**
 * Memory at the end-user boundary (CONTRACTS §21) on a real gateway and worker: an end-user token binds a run
 * only to the namespaces it was minted with, on every protocol that starts or continues a thread (403 and
 * nothing stored otherwise); an agent's tool list governs its memory tools; a file written by a run records
 * the run's end user; minting records the namespaces it granted.
 */
const FORBIDDEN = { detail: 'Not allowed with an end-user token' };
const BOBS_SECRET = 'bob is planning a surprise party';

const deployment = useDeployment({ workers: 1, timeoutMs: 120000 });
let service: ReturnType<typeof api>;
let plainAgentId: string;
let bobsAgentId: string;

beforeAll(async () => {
  service = deployment.client();
  [plainAgentId, bobsAgentId] = (
    await Promise.all([deployment.createAgent(), deployment.createAgent(['--memory-namespace', 'bob-notes'])])
  ).map((agent) => agent.id);
  const secret = await service.put('/memory/file', {
    namespace: 'bob-notes',
    path: 'secret.md',
    content: BOBS_SECRET,
    purpose: "bob's private notes",
  });
  expect(secret.status).toBe(200);
});

async function mint(body: Record<string, unknown>): Promise<string> {
  const response = await service.post('/end-user-tokens', body);
  expect(response.status).toBe(200);
  return (response.body as { token: string }).token;
}

/** A browser holding the token. */
function asBrowser(token: string) {
  const client = api(deployment.url);
  const auth = { authorization: `Bearer ${token}` };
  return {
    get: (path: string) => client.get(path, auth),
    post: (path: string, body?: unknown) => client.post(path, body, auth),
  };
}

const READ_BOBS_SECRET = '/tool memory_read {"path":"secret.md"}';

const chatBody = (agentId: string, content: string, memoryNamespace?: string) => ({
  message: { content },
  options: { agent_id: agentId, ...(memoryNamespace ? { memory_namespace: memoryNamespace } : {}) },
});

const aiSdkBody = (chatId: string, agentId: string, text: string) => ({
  id: chatId,
  trigger: 'submit-message',
  agent_id: agentId,
  messages: [{ id: `m-${chatId}`, role: 'user', parts: [{ type: 'text', text }] }],
});

/** What PostgreSQL holds of an end user's conversations: nothing may be stored by a refused request. */
async function storedOf(userId: string) {
  const [row] = await queryDatabase<{ threads: string; messages: string; chats: string }>(
    deployment.environment.databaseUrl,
    `SELECT (SELECT count(*) FROM threads WHERE org_id = $1 AND user_id = $2) AS threads,
            (SELECT count(*) FROM messages m JOIN threads t ON t.id = m.thread_id
              WHERE t.org_id = $1 AND t.user_id = $2) AS messages,
            (SELECT count(*) FROM ai_sdk_chats WHERE org_id = $1 AND user_id = $2) AS chats`,
    [deployment.org.orgId, userId],
  );
  return { threads: Number(row.threads), messages: Number(row.messages), chats: Number(row.chats) };
}

/** The reply of a thread once it is done. */
async function finishedReply(threadId: string, userId: string) {
  const deadline = Date.now() + 30000;
  for (;;) {
    const thread = await service.get(`/chat/${threadId}?user_id=${userId}`);
    const answer = thread.body.messages?.at(-1);
    if (answer?.role === 'assistant' && !answer.live) return answer;
    if (Date.now() > deadline) throw new Error(`reply not done in time: ${JSON.stringify(thread.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const toolResult = (reply: { events: { type: string }[] | null }) =>
  (reply.events ?? []).find((event) => event.type === 'tool.result') as
    { name: string; is_error: boolean; output: unknown } | undefined;

describe("a token without bob's namespace cannot reach bob's memory", () => {
  let alice: ReturnType<typeof asBrowser>;

  beforeAll(async () => {
    // Alice may use her own namespace, not bob's.
    alice = asBrowser(await mint({ user_id: 'alice', memory_namespaces: ['alice-notes'] }));
  });

  it("POST /chat naming bob's namespace in options.memory_namespace: 403, nothing stored", async () => {
    const response = await alice.post('/chat', chatBody(plainAgentId, READ_BOBS_SECRET, 'bob-notes'));
    expect(response.status).toBe(403);
    expect(response.body).toEqual(FORBIDDEN);
    expect(await storedOf('alice')).toEqual({ threads: 0, messages: 0, chats: 0 });
  });

  it("POST /chat with an agent whose own namespace is bob's: 403, nothing stored", async () => {
    const response = await alice.post('/chat', chatBody(bobsAgentId, READ_BOBS_SECRET));
    expect(response.status).toBe(403);
    expect(response.body).toEqual(FORBIDDEN);
    expect(await storedOf('alice')).toEqual({ threads: 0, messages: 0, chats: 0 });
  });

  it('POST /ai-sdk/chat with that agent: 403, no thread and no chat id bound', async () => {
    const response = await alice.post('/ai-sdk/chat', aiSdkBody('alice-chat', bobsAgentId, READ_BOBS_SECRET));
    expect(response.status).toBe(403);
    expect(response.body).toEqual(FORBIDDEN);
    expect(await storedOf('alice')).toEqual({ threads: 0, messages: 0, chats: 0 });
  });

  it('the Responses API with that agent: 403, nothing stored', async () => {
    const response = await alice.post('/openai/v1/responses', {
      model: bobsAgentId,
      input: READ_BOBS_SECRET,
    });
    expect(response.status).toBe(403);
    expect(await storedOf('alice')).toEqual({ threads: 0, messages: 0, chats: 0 });
  });

  it('an MCP tools/call of that agent: refused, nothing stored', async () => {
    const token = await mint({
      user_id: 'alice',
      agent_ids: [bobsAgentId],
      memory_namespaces: ['alice-notes'],
    });
    const client = new Client({ name: 'parley-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${deployment.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const [tool] = (await client.listTools()).tools;
      const result = (await client.callTool({
        name: tool.name,
        arguments: { message: READ_BOBS_SECRET },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain(FORBIDDEN.detail);
      expect(JSON.stringify(result.content)).not.toContain(BOBS_SECRET);
    } finally {
      await client.close();
    }
    expect(await storedOf('alice')).toEqual({ threads: 0, messages: 0, chats: 0 });
  });

  it("a follow-up, a regenerate or an edit in a thread bound to bob's namespace: 403, nothing added", async () => {
    // A key may bind any namespace: it starts one for carol, whose token then tries to continue it.
    const started = await service.post('/chat', {
      ...chatBody(plainAgentId, '/say hello', 'bob-notes'),
      options: { agent_id: plainAgentId, user_id: 'carol', memory_namespace: 'bob-notes' },
    });
    expect(started.status).toBe(200);
    const threadId = started.body.id as string;
    await finishedReply(threadId, 'carol');
    const before = await storedOf('carol');
    const carol = asBrowser(await mint({ user_id: 'carol' }));
    const attempts = [
      carol.post(`/chat/${threadId}`, { message: { content: READ_BOBS_SECRET } }),
      carol.post(`/chat/${threadId}/regenerate`, {}),
      carol.post(`/chat/${threadId}/edit`, {
        message_id: started.body.messages[0].id,
        message: { content: READ_BOBS_SECRET },
      }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual(FORBIDDEN);
    }
    expect(await storedOf('carol')).toEqual(before);
    // The thread is still carol's to read.
    expect((await carol.get(`/chat/${threadId}`)).status).toBe(200);
  });
});

describe('a token with a namespace', () => {
  it('binds a run to it; the file the run writes records its end user, and the key still reads it', async () => {
    const dave = asBrowser(await mint({ user_id: 'dave', memory_namespaces: ['dave-notes', 'dave-notes'] }));
    const write = `/tool memory_write ${JSON.stringify({ path: 'groceries.md', content: 'buy milk', purpose: 'list' })}`;
    const started = await dave.post('/chat', chatBody(plainAgentId, write, 'dave-notes'));
    expect(started.status).toBe(200);
    const reply = await finishedReply(started.body.id, 'dave');
    expect(toolResult(reply)).toMatchObject({ name: 'memory_write', is_error: false });

    const writer = () =>
      queryDatabase<{ written_by_user_ids: string[]; content: string }>(
        deployment.environment.databaseUrl,
        `SELECT written_by_user_ids, content FROM memory_files
         WHERE org_id = $1 AND namespace = 'dave-notes' AND path = 'groceries.md'`,
        [deployment.org.orgId],
      );
    expect(await writer()).toEqual([{ written_by_user_ids: ['dave'], content: 'buy milk' }]);

    // The HTTP routes write with the key, for no end user: an update keeps the writer the file had.
    const file = await service.get('/memory/file?namespace=dave-notes&path=groceries.md');
    const updated = await service.put('/memory/file', {
      namespace: 'dave-notes',
      path: 'groceries.md',
      content: 'buy oat milk',
      purpose: 'list',
      version: file.body.version,
    });
    expect(updated.status).toBe(200);
    expect(await writer()).toEqual([{ written_by_user_ids: ['dave'], content: 'buy oat milk' }]);
    const created = await service.put('/memory/file', {
      namespace: 'dave-notes',
      path: 'k.md',
      content: 'x',
      purpose: 'p',
    });
    expect(created.status).toBe(200);
    const [byKey] = await queryDatabase<{ written_by_user_ids: string[] }>(
      deployment.environment.databaseUrl,
      `SELECT written_by_user_ids FROM memory_files WHERE org_id = $1 AND namespace = 'dave-notes' AND path = 'k.md'`,
      [deployment.org.orgId],
    );
    expect(byKey.written_by_user_ids).toEqual([]);

    // Minting recorded the grant, once, for erasure and export to find.
    expect(
      await queryDatabase(
        deployment.environment.databaseUrl,
        `SELECT user_id, namespace FROM end_user_memory_namespaces WHERE org_id = $1 AND user_id = 'dave'`,
        [deployment.org.orgId],
      ),
    ).toEqual([{ user_id: 'dave', namespace: 'dave-notes' }]);
  });

  it('continues its thread on /ai-sdk/chat with an agent whose namespace it holds', async () => {
    const bob = await mint({ user_id: 'bob', memory_namespaces: ['bob-notes'] });
    const response = await fetch(`${deployment.url}/ai-sdk/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/json' },
      body: JSON.stringify(aiSdkBody('bob-chat', bobsAgentId, READ_BOBS_SECRET)),
    });
    expect(response.status).toBe(200);
    const stream = await response.text();
    expect(stream).toContain('tool-output-available');
    expect(stream).toContain(BOBS_SECRET);
  });
});

describe("the agent's tool list governs its memory tools", () => {
  it('gives a run bound to a namespace no memory tools when the list does not name memory', async () => {
    const listed = await deployment.createAgent(['--memory-namespace', 'bob-notes', '--tools', 'web']);
    const started = await service.post('/chat', {
      message: { content: READ_BOBS_SECRET },
      options: { agent_id: listed.id, user_id: 'erin' },
    });
    expect(started.status).toBe(200);
    const result = toolResult(await finishedReply(started.body.id, 'erin'));
    expect(result).toMatchObject({ name: 'memory_read', is_error: true });
    expect(JSON.stringify(result?.output)).not.toContain(BOBS_SECRET);

    const withMemory = await deployment.createAgent([
      '--memory-namespace',
      'bob-notes',
      '--tools',
      'web,memory',
    ]);
    const allowed = await service.post('/chat', {
      message: { content: READ_BOBS_SECRET },
      options: { agent_id: withMemory.id, user_id: 'erin' },
    });
    const read = toolResult(await finishedReply(allowed.body.id, 'erin'));
    expect(read).toMatchObject({ name: 'memory_read', is_error: false });
    expect(JSON.stringify(read?.output)).toContain(BOBS_SECRET);
  });
});

describe('POST /end-user-tokens memory_namespaces', () => {
  it('refuses more than five, an empty one and one longer than a namespace (422)', async () => {
    const six = Array.from({ length: 6 }, (_, i) => `ns-${i}`);
    const tooMany = await service.post('/end-user-tokens', { user_id: 'frank', memory_namespaces: six });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'memory_namespaces'],
        type: expect.any(String),
        msg: expect.any(String),
      }),
    ]);
    for (const name of ['', 'n'.repeat(129)]) {
      const bad = await service.post('/end-user-tokens', { user_id: 'frank', memory_namespaces: [name] });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'memory_namespaces']);
    }
    expect(
      (await service.post('/end-user-tokens', { user_id: 'frank', memory_namespaces: ['n'.repeat(128)] }))
        .status,
    ).toBe(200);
    const openapi = (await fetch(`${deployment.url}/openapi.json`).then((response) => response.json())) as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    expect(openapi.components.schemas.MintEndUserTokenDto.properties.memory_namespaces).toMatchObject({
      type: 'array',
      maxItems: 5,
      items: { type: 'string', minLength: 1, maxLength: 128 },
    });
    // Nothing recorded for the refused ones.
    expect(
      await queryDatabase(
        deployment.environment.databaseUrl,
        `SELECT namespace FROM end_user_memory_namespaces WHERE org_id = $1 AND user_id = 'frank'`,
        [deployment.org.orgId],
      ),
    ).toEqual([{ namespace: 'n'.repeat(128) }]);
  });
});
