import { randomUUID } from 'node:crypto';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DefaultChatTransport, readUIMessageStream, UIMessage, UIMessageChunk } from 'ai';
import OpenAI from 'openai';
import { Task } from '@a2a-js/sdk';
import { HttpAgent } from '@ag-ui/client';
import { useDeployment } from '../support/deployment';
import { a2aClient, userMessage } from './a2a.support';
import { numbered, OpenStream } from './stream.support';

/**
 * `options.agent_version` (CONTRACTS §23) in each protocol's own terms: the AI SDK transport's body
 * `agent_version`, the Responses API's `prompt.version`, an MCP tool's `agent_version` argument and A2A's
 * `metadata.agent_version`, AG-UI's `forwardedProps.agent_version`. A pinned reply runs and records that version (its `message.started` line); an unknown
 * version is refused in the protocol's own error shape, naming its field.
 */
const deployment = useDeployment({ workers: 1, workerEnv: { WORKER_HEALTH_PORT: '0' }, timeoutMs: 120000 });
let agentId: string;

beforeAll(async () => {
  const created = await client().post('/agents', { name: 'versioned' });
  agentId = created.body.id as string;
  // Version 2 is the latest: an unpinned reply would run it.
  expect((await client().put(`/agents/${agentId}`, { instructions: 'Second thoughts.' })).status).toBe(200);
});

const client = () => deployment.client();

/** The version a reply ran, as its stream's first line names it, once the reply ended. */
async function versionRun(replyId: string): Promise<unknown> {
  const lines = numbered(
    await new OpenStream(`${deployment.url}/chat/messages/${replyId}/stream`, deployment.org.key).all(),
  );
  expect(lines.at(-1)).toMatchObject({ type: 'message.completed', message: { status: 'success' } });
  expect(lines[0]).toMatchObject({ type: 'message.started' });
  return lines[0].agent_version;
}

describe('the AI SDK chat route', () => {
  const send = (chatId: string, body: Record<string, unknown>): Promise<ReadableStream<UIMessageChunk>> =>
    new DefaultChatTransport<UIMessage>({
      api: `${deployment.url}/ai-sdk/chat`,
      headers: { authorization: `Bearer ${deployment.org.key}` },
      body: { agent_id: agentId, user_id: 'alice', ...body },
    }).sendMessages({
      chatId,
      messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text: '/say pinned' }] }],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });

  const replyIdOf = async (stream: ReadableStream<UIMessageChunk>): Promise<string> => {
    let id = '';
    for await (const message of readUIMessageStream<UIMessage>({ stream })) id = message.id;
    return id;
  };

  it('pins a new chat and a follow-up to the body’s agent_version', async () => {
    const chatId = `chat-${randomUUID()}`;
    expect(await versionRun(await replyIdOf(await send(chatId, { agent_version: 1 })))).toBe(1);
    // A follow-up runs the latest unless pinned again.
    expect(await versionRun(await replyIdOf(await send(chatId, {})))).toBe(2);
    expect(await versionRun(await replyIdOf(await send(chatId, { agent_version: 1 })))).toBe(1);
  });

  it('refuses an unknown version with a 422 at body.agent_version', async () => {
    const refused = await client().post('/ai-sdk/chat', {
      id: `chat-${randomUUID()}`,
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      trigger: 'submit-message',
      agent_id: agentId,
      user_id: 'alice',
      agent_version: 7,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'agent_version'], type: 'value_error', input: 7 }),
    ]);
  });
});

describe('the Responses API', () => {
  const openai = () =>
    new OpenAI({ apiKey: deployment.org.key, baseURL: `${deployment.url}/openai/v1`, maxRetries: 0 });
  const replyOf = (responseId: string) => responseId.replace(/^resp_/, '');

  it('pins a response and a follow-up to prompt.version, as OpenAI pins a stored prompt', async () => {
    const first = await openai().responses.create({
      model: agentId,
      input: '/say pinned',
      user: 'alice',
      prompt: { id: agentId, version: '1' },
    });
    expect(first.status).toBe('completed');
    expect(await versionRun(replyOf(first.id))).toBe(1);
    const followUp = await openai().responses.create({
      model: agentId,
      input: '/say again',
      user: 'alice',
      previous_response_id: first.id,
    });
    expect(await versionRun(replyOf(followUp.id))).toBe(2);
  });

  it('refuses an unknown version with a 400 naming prompt.version', async () => {
    const refused = await openai()
      .responses.create({ model: agentId, input: 'hi', user: 'alice', prompt: { id: agentId, version: '7' } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      type: 'invalid_request_error',
      param: 'prompt.version',
      message: 'Value error, the agent has no such version',
    });
  });
});

describe('MCP tools/call', () => {
  async function connect(): Promise<McpClient> {
    const mcp = new McpClient({ name: 'parley-e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${deployment.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${deployment.org.key}` } },
      }),
    );
    return mcp;
  }

  it('lists agent_version among a tool’s arguments and pins the reply to it', async () => {
    const mcp = await connect();
    try {
      const { tools } = await mcp.listTools();
      expect(tools[0].inputSchema.properties).toMatchObject({
        agent_version: { type: 'integer', minimum: 1 },
      });
      const result = (await mcp.callTool({
        name: tools[0].name,
        arguments: { message: '/say pinned', user_id: 'alice', agent_version: 1 },
      })) as CallToolResult;
      expect(result.isError).toBe(false);
      expect(await versionRun(result.structuredContent!.message_id as string)).toBe(1);

      const unknown = (await mcp.callTool({
        name: tools[0].name,
        arguments: { message: 'hi', user_id: 'alice', agent_version: 7 },
      })) as CallToolResult;
      expect(unknown).toMatchObject({
        isError: true,
        content: [
          { type: 'text', text: 'arguments.agent_version: Value error, the agent has no such version' },
        ],
      });
    } finally {
      await mcp.close();
    }
  });
});

describe('A2A', () => {
  const send = async (metadata: Record<string, unknown>, contextId = ''): Promise<Task> => {
    const a2a = await a2aClient(deployment.url, agentId, deployment.org.key);
    return (await a2a.sendMessage({
      tenant: '',
      configuration: undefined,
      message: userMessage('/say pinned', { contextId }),
      metadata: { user_id: 'alice', ...metadata },
    })) as Task;
  };

  it('pins a task, and a follow-up in its context, to metadata.agent_version', async () => {
    const first = await send({ agent_version: 1 });
    expect(await versionRun(first.id)).toBe(1);
    expect(await versionRun((await send({}, first.contextId)).id)).toBe(2);
    expect(await versionRun((await send({ agent_version: 1 }, first.contextId)).id)).toBe(1);
  });

  it('refuses an unknown version with invalid params naming the field', async () => {
    const refused = await send({ agent_version: 7 }).catch((error: unknown) => error as Error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toContain('the agent has no such version');
  });
});

describe('AG-UI', () => {
  // HttpAgent logs the error it then raises; the raised one is what the refusal reads.
  beforeEach(() => jest.spyOn(console, 'error').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  const runWith = (forwardedProps: Record<string, unknown>) => {
    const agent = new HttpAgent({
      url: `${deployment.url}/ag-ui/agents/${agentId}`,
      headers: { Authorization: `Bearer ${deployment.org.key}` },
    });
    agent.addMessage({ id: randomUUID(), role: 'user', content: '/say pinned' });
    return agent.runAgent({ forwardedProps: { user_id: 'alice', ...forwardedProps } });
  };

  it('pins a run to forwardedProps.agent_version and stores the version on its reply', async () => {
    await runWith({ agent_version: 1 });
    // The newest thread of alice is the run's: the tests of this file run one after another.
    const [newest] = (await client().get(`/chat?user_id=alice&limit=1`)).body as { id: string }[];
    const thread = await client().get(`/chat/${newest.id}?user_id=alice`);
    expect(thread.body.messages[0].content).toBe('/say pinned');
    expect(thread.body.messages[1].events[0]).toMatchObject({ type: 'message.started', agent_version: 1 });
  });

  it('refuses an unknown version with a RUN_ERROR naming the field', async () => {
    const error = (await runWith({ agent_version: 7 }).catch((thrown: unknown) => thrown)) as {
      status: number;
      payload: unknown;
    };
    expect(error.status).toBe(422);
    expect(error.payload).toMatchObject({
      type: 'RUN_ERROR',
      code: 'invalid_input',
      loc: ['body', 'forwardedProps', 'agent_version'],
    });
  });
});
