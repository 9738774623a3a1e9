import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import OpenAI from 'openai';
import { useDeployment } from '../support/deployment';
import { admin, AgentFixture } from '../factories/admin';

/**
 * End-user tokens (CONTRACTS §17) on the Responses API and the MCP server (§18, "a key or an end-user token"),
 * through the official `openai` package and the MCP SDK's Client against a real gateway and worker: the token
 * is its user (its own threads, no one else's), sees only its agents, and a revoked key's token is refused in
 * each client's own error class.
 */
const clients: Client[] = [];

// The MCP clients hang up before the gateway stops.
afterAll(() => Promise.all(clients.map((client) => client.close())));
const deployment = useDeployment({ workers: 1, workerEnv: { WORKER_HEALTH_PORT: '0' }, timeoutMs: 120000 });
let agent: AgentFixture;
let otherAgent: AgentFixture;

beforeAll(async () => {
  [agent, otherAgent] = await Promise.all([deployment.createAgent(), deployment.createAgent()]);
});

async function mint(body: Record<string, unknown>, key = deployment.org.key): Promise<string> {
  const response = await deployment.client(key).post('/end-user-tokens', body);
  expect(response.status).toBe(200);
  return (response.body as { token: string }).token;
}

const openAi = (apiKey: string) =>
  new OpenAI({ apiKey, baseURL: `${deployment.url}/openai/v1`, maxRetries: 0 });

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'parley-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${deployment.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

const structured = (result: unknown) =>
  (result as CallToolResult).structuredContent as Record<string, unknown>;
const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

/** A thread of this end user, as the service key sees it (404: of someone else). */
async function threadOf(
  threadId: string,
  userId: string,
): Promise<{ messages: { agent?: { id: string } }[] }> {
  const response = await deployment.client().get(`/chat/${threadId}?user_id=${userId}`);
  expect(response.status).toBe(200);
  return response.body as { messages: { agent?: { id: string } }[] };
}

/** Retries `attempt` until it throws (a revocation reaches the key cache at once, but asynchronously). */
async function refusalOf(attempt: () => Promise<unknown>): Promise<unknown> {
  const started = Date.now();
  for (;;) {
    const error = await attempt().then(
      () => null,
      (failure: unknown) => failure,
    );
    if (error || Date.now() - started > 2000) return error;
  }
}

describe('the Responses API with an end-user token', () => {
  it("runs as the token's user, with user left out or repeated; another user is refused", async () => {
    const alice = openAi(await mint({ user_id: 'alice' }));
    const first = await alice.responses.create({ model: agent.id, input: '/say hi alice' });
    expect(first).toMatchObject({ status: 'completed', output_text: 'hi alice', user: 'alice' });
    const second = await alice.responses.create({
      model: agent.id,
      input: '/say again',
      user: 'alice',
      previous_response_id: first.id,
    });
    expect(second).toMatchObject({ status: 'completed', user: 'alice', previous_response_id: first.id });
    expect(await alice.responses.retrieve(second.id)).toMatchObject({ output_text: 'again' });

    const asBob = await alice.responses
      .create({ model: agent.id, input: 'hi', user: 'bob' })
      .catch((error: unknown) => error);
    expect(asBob).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(asBob).toMatchObject({ status: 403, type: 'permission_error' });
  });

  it('finds no response of another user: retrieve, stream, cancel and continue are 404', async () => {
    const bobs = await openAi(deployment.org.key).responses.create({
      model: agent.id,
      input: '/say bob only',
      user: 'bob',
    });
    const alice = openAi(await mint({ user_id: 'alice' }));
    await expect(alice.responses.retrieve(bobs.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(alice.responses.retrieve(bobs.id, { stream: true })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    await expect(alice.responses.cancel(bobs.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(
      alice.responses.create({ model: agent.id, input: 'what did bob say?', previous_response_id: bobs.id }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('with agent_ids, refuses another agent and finds none of its responses', async () => {
    const limited = openAi(await mint({ user_id: 'carol', agent_ids: [agent.id] }));
    expect((await limited.responses.create({ model: agent.id, input: '/say ok' })).status).toBe('completed');
    await expect(limited.responses.create({ model: otherAgent.id, input: 'hi' })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    // Carol's own response, with the agent the token may not use.
    const carols = await openAi(deployment.org.key).responses.create({
      model: otherAgent.id,
      input: '/say other agent',
      user: 'carol',
    });
    await expect(limited.responses.retrieve(carols.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("refuses a revoked key's token with the package's AuthenticationError", async () => {
    const key = await admin<{ id: string; key: string }>(deployment.environment.env, [
      'keys:create',
      '--org',
      deployment.org.org,
    ]);
    const client = openAi(await mint({ user_id: 'alice' }, key.key));
    const live = await client.responses.create({ model: agent.id, input: '/say live' });
    expect(live.status).toBe('completed');
    await admin(deployment.environment.env, ['keys:revoke', '--id', key.id]);
    const refused = await refusalOf(() => client.responses.retrieve(live.id));
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused).toMatchObject({ status: 401, type: 'authentication_error' });
  });
});

describe('the MCP server with an end-user token', () => {
  it('lists only the agents of the token, with user_id not required', async () => {
    const limited = await mcpClient(await mint({ user_id: 'carol', agent_ids: [agent.id] }));
    const { tools } = await limited.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([agent.name]);
    expect(tools[0].inputSchema.required).toEqual(['message']);
    const any = await mcpClient(await mint({ user_id: 'carol' }));
    expect((await any.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
      [agent.name, otherAgent.name].sort(),
    );
  });

  it("calls an agent as the token's user, and continues only its own threads", async () => {
    const alice = await mcpClient(await mint({ user_id: 'alice' }));
    const first = await alice.callTool({ name: agent.name, arguments: { message: '/say from mcp' } });
    expect(first.isError).toBe(false);
    expect(text(first)).toBe('from mcp');
    const threadId = String(structured(first).thread_id);
    expect((await threadOf(threadId, 'alice')).messages[1].agent?.id).toBe(agent.id);
    const again = await alice.callTool({
      name: agent.name,
      arguments: { message: '/say more', user_id: 'alice', thread_id: threadId },
    });
    expect(structured(again)).toMatchObject({ thread_id: threadId, content: 'more' });

    const asBob = await alice.callTool({ name: agent.name, arguments: { message: 'hi', user_id: 'bob' } });
    expect(asBob).toEqual({
      content: [{ type: 'text', text: 'user_id differs from the end user of the token' }],
      isError: true,
    });
    const bobs = await (
      await mcpClient(deployment.org.key)
    ).callTool({ name: agent.name, arguments: { message: '/say bob only', user_id: 'bob' } });
    const intoBobs = await alice.callTool({
      name: agent.name,
      arguments: { message: 'what did bob say?', thread_id: structured(bobs).thread_id },
    });
    expect(intoBobs).toEqual({ content: [{ type: 'text', text: 'Thread not found' }], isError: true });
  });

  it('refuses a call to an agent outside agent_ids as an unknown tool', async () => {
    const limited = await mcpClient(await mint({ user_id: 'carol', agent_ids: [agent.id] }));
    const refused = await limited.callTool({ name: otherAgent.name, arguments: { message: 'hi' } });
    expect(refused).toEqual({
      content: [{ type: 'text', text: `Unknown tool ${otherAgent.name}` }],
      isError: true,
    });
  });

  it("refuses a revoked key's token with the SDK's StreamableHTTPError 401", async () => {
    const key = await admin<{ id: string; key: string }>(deployment.environment.env, [
      'keys:create',
      '--org',
      deployment.org.org,
    ]);
    const token = await mint({ user_id: 'alice' }, key.key);
    expect((await (await mcpClient(token)).listTools()).tools.length).toBe(2);
    await admin(deployment.environment.env, ['keys:revoke', '--id', key.id]);
    const error = await refusalOf(() => mcpClient(token));
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
  });
});
