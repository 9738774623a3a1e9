import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DynamicToolUIPart } from 'ai';
import OpenAI from 'openai';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';
import { startThread } from './replies.support';
import { a2aClient, collect, userMessage } from './a2a.support';
import { MemoryChat, toolParts } from './ai-sdk-chat.support';
import { until } from './stream.support';

/**
 * Admission control on every protocol: while the service is at capacity, a request of any protocol that would
 * start a reply is refused in that protocol's own error form, through its official client, and stores nothing;
 * reads and answers to a reply that waits go through. Capacity is closed for certain, not by timing: the worker
 * is stopped, so the one reply posted then waits for a slot (ADMISSION_MAX_QUEUED_RUNS=1) until a worker is back.
 */
let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess;
let org: OrgFixture;
let agentId: string;
const mcpClients: McpClient[] = [];

/** A chat of the AI SDK whose reply waits for a person to approve its `clock` call. */
let waiting: { chat: MemoryChat; approvalId: string; replyId: string };
/** A task A2A finished before capacity closed. */
let finishedTaskId: string;
/** The organization's threads and messages when capacity closed. */
let storedAtClose: { threads: number; messages: number };

beforeAll(async () => {
  environment = await createTestEnvironment();
  [gateway, worker] = await Promise.all([
    // The event loop's delay is left out: on a shared test machine it says more about the neighbours.
    startGateway(environment.env, { ADMISSION_MAX_QUEUED_RUNS: '1', ADMISSION_MAX_EVENT_LOOP_DELAY_MS: '0' }),
    startWorker(environment.env, { WORKER_HEALTH_PORT: '0' }),
  ]);
  org = await createOrg(environment.env);
  agentId = (await createAgent(environment.env, org.org)).id;
  const service = api(gateway.url!, org.key);
  const careful = await service.post('/agents', { name: 'Careful', approval_required: ['clock'] });

  const chat = new MemoryChat(gateway.url!, await endUserToken('u-approver'), careful.body.id as string);
  await chat.sendMessage({ text: '/tool clock {}' });
  const tool = toolParts(chat.lastMessage)[0] as DynamicToolUIPart & { approval: { id: string } };
  expect(tool.state).toBe('approval-requested');
  waiting = { chat, approvalId: tool.approval.id, replyId: chat.lastMessage!.id };

  const a2a = await a2aClient(gateway.url!, agentId, org.key);
  const task = await a2a.sendMessage({
    tenant: '',
    configuration: undefined,
    message: userMessage('/say done before the rush'),
    metadata: { user_id: 'u-a2a' },
  });
  finishedTaskId = (task as { id: string }).id;

  // No worker: the next reply waits for a slot, and admission stays closed until one is back.
  await worker.stop();
  await startThread(service, agentId, 'u-blocking', '/say at last');
  await until(async () => (await fetch(`${gateway.url}/health/admission`)).status === 503, 5000);
  storedAtClose = await storedRows();
}, 120000);

afterAll(async () => {
  await Promise.all(mcpClients.map((client) => client.close()));
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await environment?.dispose();
});

async function endUserToken(userId: string): Promise<string> {
  const minted = await api(gateway.url!, org.key).post('/end-user-tokens', { user_id: userId });
  expect(minted.status).toBe(200);
  return minted.body.token as string;
}

async function storedRows(): Promise<{ threads: number; messages: number }> {
  const [row] = await queryDatabase<{ threads: string; messages: string }>(
    environment.databaseUrl,
    `SELECT (SELECT count(*) FROM threads WHERE org_id = $1) AS threads,
            (SELECT count(*) FROM messages WHERE org_id = $1) AS messages`,
    [org.orgId],
  );
  return { threads: Number(row.threads), messages: Number(row.messages) };
}

async function stillClosed(): Promise<void> {
  const admission = await fetch(`${gateway.url}/health/admission`);
  expect(admission.status).toBe(503);
  expect(await admission.json()).toMatchObject({ admitting: false });
}

async function mcpClient(): Promise<McpClient> {
  const client = new McpClient({ name: 'parley-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${org.key}` } },
    }),
  );
  mcpClients.push(client);
  return client;
}

const AT_CAPACITY = 'Service at capacity; retry later';

describe('while the service is at capacity', () => {
  afterEach(stillClosed);

  it('refuses the JSONL API and a routine run by hand with 503 and Retry-After, as before', async () => {
    const service = api(gateway.url!, org.key);
    const refused = await service.post('/chat', {
      message: { content: '/say hi' },
      options: { agent_id: agentId, user_id: 'u-jsonl' },
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({ detail: AT_CAPACITY });

    const routine = await service.post('/routines', {
      name: 'Digest',
      agent_id: agentId,
      user_id: 'u-routine',
      schedule: '0 9 1 1 *',
      message: { content: '/say digest' },
    });
    expect(routine.status).toBe(200);
    const run = await service.post(`/routines/${routine.body.id}/run?user_id=u-routine`);
    expect(run.status).toBe(503);
    expect(run.headers.get('retry-after')).toBe('1');
    expect(run.body).toEqual({ detail: AT_CAPACITY });
  });

  it("refuses an AI SDK message with 503 and Retry-After, which useChat raises as the chat's error", async () => {
    const chat = new MemoryChat(gateway.url!, await endUserToken('u-ai-sdk'), agentId);
    await chat.sendMessage({ text: '/say hi' });
    expect(chat.status).toBe('error');
    expect(JSON.parse(chat.error!.message)).toEqual({ detail: AT_CAPACITY });

    const refused = await api(gateway.url!, org.key).post('/ai-sdk/chat', {
      id: `chat-${randomUUID()}`,
      agent_id: agentId,
      user_id: 'u-ai-sdk',
      trigger: 'submit-message',
      messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text: '/say hi' }] }],
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
  });

  it("refuses a Responses API request, blocking or streamed, with 503 and OpenAI's error object", async () => {
    const openAi = new OpenAI({ apiKey: org.key, baseURL: `${gateway.url}/openai/v1`, maxRetries: 0 });
    for (const stream of [false, true]) {
      const error = await openAi.responses
        .create({ model: agentId, input: '/say hi', user: 'u-responses', stream })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      const refusal = error as InstanceType<typeof OpenAI.InternalServerError>;
      expect(refusal.status).toBe(503);
      expect(refusal.error).toEqual({ message: AT_CAPACITY, type: 'server_error', param: null, code: null });
      expect(refusal.headers.get('retry-after')).toBe('1');
    }
  });

  it('refuses an MCP tools/call with JSON-RPC error -32000; initialize, ping and tools/list go through', async () => {
    const client = await mcpClient();
    await expect(client.ping()).resolves.toEqual({});
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const refusal = await client
      .callTool({ name: tools[0].name, arguments: { message: '/say hi', user_id: 'u-mcp' } })
      .catch((thrown: unknown) => thrown);
    expect(refusal).toMatchObject({
      code: -32000,
      message: `MCP error -32000: ${AT_CAPACITY}`,
      data: { retry_after_seconds: 1 },
    });
  });

  it('refuses an A2A message, blocking or streamed, with 503, Retry-After and JSON-RPC error -32000; GetTask goes through', async () => {
    const client = await a2aClient(gateway.url!, agentId, org.key);
    const send = {
      tenant: '',
      configuration: undefined,
      message: userMessage('/say hi'),
      metadata: { user_id: 'u-a2a' },
    };
    const refusal = { name: 'JsonRpcTransportError', envelopeCode: -32000, message: AT_CAPACITY };
    await expect(client.sendMessage(send)).rejects.toMatchObject(refusal);
    await expect(collect(client.sendMessageStream(send))).rejects.toMatchObject(refusal);

    const refused = await api(gateway.url!, org.key).post(`/a2a/agents/${agentId}`, {
      jsonrpc: '2.0',
      id: 7,
      method: 'SendMessage',
      params: {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: '/say hi' }] },
        metadata: { user_id: 'u-a2a' },
      },
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32000, message: AT_CAPACITY } });

    const task = await client.getTask({ tenant: '', id: finishedTaskId, historyLength: undefined });
    expect(task.id).toBe(finishedTaskId);
  });

  it('refuses an AG-UI run with a message with 503 and Retry-After, a RUN_ERROR body HttpAgent raises', async () => {
    // HttpAgent logs the error it then raises; the raised one is what this test reads.
    const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const agent = new HttpAgent({
      url: `${gateway.url}/ag-ui/agents/${agentId}`,
      headers: { Authorization: `Bearer ${org.key}` },
    });
    agent.addMessage({ id: randomUUID(), role: 'user', content: '/say hi' });
    const error = (await agent
      .runAgent({ forwardedProps: { user_id: 'u-ag-ui' } })
      .catch((thrown: unknown) => thrown)) as { status: number; payload: unknown };
    quiet.mockRestore();
    expect(error.status).toBe(503);
    expect(error.payload).toEqual({ type: 'RUN_ERROR', message: AT_CAPACITY, code: 'unavailable' });

    const refused = await api(gateway.url!, org.key).post(`/ag-ui/agents/${agentId}`, {
      threadId: `thread-${randomUUID()}`,
      runId: randomUUID(),
      messages: [{ id: randomUUID(), role: 'user', content: '/say hi' }],
      forwardedProps: { user_id: 'u-ag-ui' },
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
  });

  it('stored nothing for any refused request', async () => {
    expect(await storedRows()).toEqual(storedAtClose);
  });

  it('takes an approval answer sent through the AI SDK: answering frees work', async () => {
    const { chat, approvalId, replyId } = waiting;
    // The answer's stream goes on once a worker runs the reply: not awaited here.
    void chat.addToolApprovalResponse({ id: approvalId, approved: true });
    await until(async () => {
      const [row] = await queryDatabase<{ decision: string | null }>(
        environment.databaseUrl,
        'SELECT decision FROM tool_approvals WHERE message_id = $1',
        [replyId],
      );
      return row.decision === 'approve';
    }, 10000);
    expect(chat.error).toBeUndefined();
  });
});

it('runs the answered reply and admits again once a worker is back', async () => {
  worker = await startWorker(environment.env, { WORKER_HEALTH_PORT: '0' });
  const { chat } = waiting;
  await until(
    () => chat.status === 'ready' && toolParts(chat.lastMessage)[0]?.state === 'output-available',
    20000,
  );
  expect(chat.error).toBeUndefined();
  await until(async () => (await fetch(`${gateway.url}/health/admission`)).status === 200, 10000);
  await startThread(api(gateway.url!, org.key), agentId, 'u-jsonl', '/say welcome back');
});
