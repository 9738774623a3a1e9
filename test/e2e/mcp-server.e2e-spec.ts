import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { useDeployment } from '../support/deployment';
import { admin } from '../factories/admin';
import { until } from './stream.support';

/**
 * Issue 32, the MCP server at /mcp (CONTRACTS §18), driven by the SDK's own Client over its streamable HTTP
 * transport against a real gateway and worker: the agents as tools, a call that runs a reply and waits for it, a
 * follow-up by thread_id, progress per step, errors as tool results, and no other tenant's data.
 */
const agents: Record<string, string> = {};
const clients: Client[] = [];

// The MCP clients hang up before the gateway stops.
afterAll(() => Promise.all(clients.map((client) => client.close())));
const deployment = useDeployment({ workers: 1, workerEnv: { WORKER_HEALTH_PORT: '0' }, timeoutMs: 120000 });

beforeAll(async () => {
  agents.helper = await namedAgent(deployment.org.org, 'helper', [
    '--instructions',
    'The vault code is 1234: never tell it.',
    '--description',
    'You help with the handbook.',
  ]);
  agents.clash = await namedAgent(deployment.org.org, 'Helper!');
  agents.support = await namedAgent(deployment.org.org, 'Support Bot (EU)');
  await admin(deployment.environment.env, [
    'agents:archive',
    '--id',
    await namedAgent(deployment.org.org, 'gone'),
  ]);
});

async function namedAgent(orgName: string, name: string, flags: string[] = []): Promise<string> {
  return (
    await admin<{ id: string }>(deployment.environment.env, [
      'agents:create',
      '--org',
      orgName,
      '--name',
      name,
      ...flags,
    ])
  ).id;
}

async function connect(
  key: string,
  header: 'authorization' | 'x-service-token' = 'authorization',
): Promise<Client> {
  const client = new Client({ name: 'parley-e2e', version: '1.0.0' });
  const headers: Record<string, string> =
    header === 'authorization' ? { authorization: `Bearer ${key}` } : { 'x-service-token': key };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${deployment.url}/mcp`), { requestInit: { headers } }),
  );
  clients.push(client);
  return client;
}

const structured = (result: unknown) =>
  (result as CallToolResult).structuredContent as Record<string, unknown>;
const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('the MCP server at /mcp with the SDK client', () => {
  it('lists one tool per active agent, named by the rule of §18, with its input schema', async () => {
    const client = await connect(deployment.org.key);
    const { tools } = await client.listTools();
    // "Helper!" clashes with "helper", created before it; the archived "gone" is left out.
    expect(tools.map((tool) => tool.name)).toEqual(['helper', 'helper_', 'support_bot_eu_']);
    // The operator's description for callers, never the instructions (issue 46: they reached browsers).
    expect(tools[0].description).toBe('Ask the agent helper. You help with the handbook.');
    expect(JSON.stringify(tools)).not.toContain('vault');
    expect(tools[0].inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' }, thread_id: { type: 'string' }, user_id: { type: 'string' } },
      required: ['message', 'user_id'],
    });
  });

  it('runs a reply on tools/call and answers its text and structured content', async () => {
    const client = await connect(deployment.org.key, 'x-service-token');
    const result = await client.callTool({
      name: 'helper',
      arguments: { message: '/say all good', user_id: 'alice' },
    });
    expect(result.isError).toBe(false);
    expect(text(result)).toBe('all good');
    expect(structured(result)).toEqual({
      thread_id: expect.any(String),
      message_id: expect.any(String),
      status: 'success',
      content: 'all good',
      questions: null,
      structured_output: null,
      error_code: null,
      model_fallbacks: [],
      guardrails: [],
    });
  });

  it('posts a follow-up to the thread given by thread_id', async () => {
    const client = await connect(deployment.org.key);
    const first = await client.callTool({
      name: 'support_bot_eu_',
      arguments: { message: '/say one', user_id: 'bob' },
    });
    const threadId = structured(first).thread_id;
    const second = await client.callTool({
      name: 'support_bot_eu_',
      arguments: { message: '/say two', user_id: 'bob', thread_id: threadId },
    });
    expect(structured(second)).toMatchObject({ thread_id: threadId, content: 'two', status: 'success' });
    const thread = await fetch(`${deployment.url}/chat/${String(threadId)}?user_id=bob`, {
      headers: { 'x-service-token': deployment.org.key },
    }).then((response) => response.json() as Promise<{ messages: { content: string }[] }>);
    expect(thread.messages.map((message) => message.content)).toEqual(['/say one', 'one', '/say two', 'two']);
  });

  it('sends a progress notification per step when the client gives a progress token', async () => {
    const client = await connect(deployment.org.key);
    const progress: Progress[] = [];
    const result = await client.callTool(
      {
        name: 'helper',
        arguments: { message: '/tool clock {}\n/tool clock {}\n/say done', user_id: 'alice' },
      },
      undefined,
      { onprogress: (update) => progress.push(update) },
    );
    expect(text(result)).toContain('done');
    expect(progress.map((update) => update.progress)).toEqual([1, 2, 3]);
  });

  it('answers isError for a reply that failed, and for an unknown tool', async () => {
    const client = await connect(deployment.org.key);
    const failed = await client.callTool({
      name: 'helper',
      arguments: { message: '/fail', user_id: 'alice' },
    });
    expect(failed.isError).toBe(true);
    expect(structured(failed)).toMatchObject({ status: 'error' });
    const unknown = await client.callTool({ name: 'gone', arguments: { message: 'hi', user_id: 'alice' } });
    expect(unknown).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Unknown tool gone' }] });
    const noUser = await client.callTool({ name: 'helper', arguments: { message: 'hi' } });
    expect(noUser.isError).toBe(true);
    expect(text(noUser)).toMatch(/user_id/);
  });

  it('answers at once when the reply waits for a person, and the approvals route then completes it', async () => {
    const created = await fetch(`${deployment.url}/agents`, {
      method: 'POST',
      headers: { 'x-service-token': deployment.org.key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'gated', approval_required: ['clock'] }),
    }).then((response) => response.json() as Promise<{ id: string }>);
    expect(created.id).toEqual(expect.any(String));
    const client = await connect(deployment.org.key);
    // Before, the call waited for the decision until the client's time-out: a second is all it may take.
    const result = await client.callTool(
      { name: 'gated', arguments: { message: '/tool clock {"zone": "UTC"}\n/say done', user_id: 'carol' } },
      undefined,
      { timeout: 1000 },
    );
    expect(result.isError).toBe(false);
    const waiting = structured(result);
    expect(waiting).toMatchObject({
      thread_id: expect.any(String),
      message_id: expect.any(String),
      status: 'requires_action',
      waiting_calls: [{ call_id: expect.any(String), name: 'clock', arguments: { zone: 'UTC' } }],
      decide: { method: 'POST', path: `/chat/messages/${String(waiting.message_id)}/approvals` },
    });
    expect(text(result)).toContain(`POST /chat/messages/${String(waiting.message_id)}/approvals`);
    expect(text(result)).toContain(String(waiting.thread_id));

    const [call] = waiting.waiting_calls as { call_id: string }[];
    const decided = await fetch(`${deployment.url}${String((waiting.decide as { path: string }).path)}`, {
      method: 'POST',
      headers: { 'x-service-token': deployment.org.key, 'content-type': 'application/json' },
      body: JSON.stringify({ call_id: call.call_id, decision: 'approve', user_id: 'carol' }),
    });
    expect(decided.status).toBe(200);
    let reply: { id: string; status: string; content: string } | undefined;
    await until(async () => {
      const thread = await fetch(`${deployment.url}/chat/${String(waiting.thread_id)}?user_id=carol`, {
        headers: { 'x-service-token': deployment.org.key },
      }).then((response) => response.json() as Promise<{ messages: (typeof reply)[] }>);
      reply = thread.messages[1];
      return reply?.status === 'success';
    });
    expect(reply).toMatchObject({ id: waiting.message_id, content: expect.stringContaining('done') });
  });

  it("never touches another organization's thread: it is not found, as a missing one", async () => {
    const mine = await (
      await connect(deployment.org.key)
    ).callTool({
      name: 'helper',
      arguments: { message: '/say private words', user_id: 'alice' },
    });
    const other = await deployment.createOrg();
    await namedAgent(other.org, 'helper');
    const theirs = await connect(other.key);
    const result = await theirs.callTool({
      name: 'helper',
      arguments: { message: 'what did they say?', user_id: 'alice', thread_id: structured(mine).thread_id },
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Thread not found' }], isError: true });
    // Its own list holds only its own agent.
    expect((await theirs.listTools()).tools.map((tool) => tool.name)).toEqual(['helper']);
  });

  it('refuses a client without a valid key with 401', async () => {
    const error = await connect('sk-svc-not-a-key').catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
  });

  it('answers over plain HTTP with the gateway headers, and 405 to GET and DELETE (no sessions)', async () => {
    const initialize = await fetch(`${deployment.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${deployment.org.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'curl', version: '1' },
        },
      }),
    });
    expect(initialize.status).toBe(200);
    expect(initialize.headers.get('x-request-id')).toBeTruthy();
    expect(initialize.headers.get('mcp-session-id')).toBeNull();
    expect(await initialize.text()).toContain('"serverInfo":{"name":"parley"');
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${deployment.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${deployment.org.key}` },
      });
      expect({ method, status: response.status }).toEqual({ method, status: 405 });
    }
  });
});
