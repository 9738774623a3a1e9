import { randomUUID } from 'node:crypto';
import {
  DefaultChatTransport,
  DynamicToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
  UIMessage,
  UIMessageChunk,
} from 'ai';
import { useDeployment } from '../support/deployment';
import { api } from '../support/http';
import { MemoryChat, toolParts } from './ai-sdk-chat.support';
import { until } from './stream.support';

/**
 * The AI SDK's chat protocol (CONTRACTS §17) driven by the real `ai` package, as `useChat` drives it: its
 * DefaultChatTransport posts and resumes, readUIMessageStream assembles the message, against a real gateway
 * and worker running the builtin model (CONTRACTS §6).
 */
const deployment = useDeployment({ workers: 1, workerEnv: { WORKER_HEALTH_PORT: '0' }, agent: true });
let service: ReturnType<typeof api>;

interface Session {
  userId: string;
  token: string;
  transport: DefaultChatTransport<UIMessage>;
}

async function session(userId: string): Promise<Session> {
  const minted = await service.post('/end-user-tokens', { user_id: userId });
  const token = minted.body.token as string;
  const transport = new DefaultChatTransport<UIMessage>({
    api: `${deployment.url}/ai-sdk/chat`,
    headers: { authorization: `Bearer ${token}` },
    body: { agent_id: deployment.agentId },
  });
  return { userId, token, transport };
}

const userMessage = (text: string): UIMessage => ({
  id: randomUUID(),
  role: 'user',
  parts: [{ type: 'text', text }],
});

function send(user: Session, chatId: string, text: string): Promise<ReadableStream<UIMessageChunk>> {
  return user.transport.sendMessages({
    chatId,
    messages: [userMessage(text)],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
}

/** The assistant message as useChat would show it, and the errors the stream reported. */
async function assemble(
  stream: ReadableStream<UIMessageChunk>,
): Promise<{ message: UIMessage; errors: string[] }> {
  const errors: string[] = [];
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream<UIMessage>({
    stream,
    onError: (error) => errors.push((error as Error).message),
  })) {
    message = snapshot;
  }
  if (!message) throw new Error('the stream assembled no message');
  return { message, errors };
}

async function chunksOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
  return chunks;
}

const textOf = (message: UIMessage): string =>
  message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

/** The stored reply (GET /chat/{thread}) with this id, and its thread. */
async function storedReply(userId: string, replyId: string) {
  const threads = (await service.get(`/chat?user_id=${userId}`)).body as { id: string }[];
  for (const summary of threads) {
    const thread = (await service.get(`/chat/${summary.id}?user_id=${userId}`)).body;
    const reply = thread.messages.find((message: { id: string }) => message.id === replyId);
    if (reply) return { thread, reply };
  }
  throw new Error(`reply ${replyId} not stored for ${userId}`);
}

/** Reads a raw HTTP body to its end, as text. */
const rawBody = async (response: Response): Promise<string> => response.text();

beforeAll(() => {
  service = deployment.client();
});

describe('POST /ai-sdk/chat', () => {
  it('answers the UI message stream v1: its header, SSE frames with ids, [DONE] last', async () => {
    const alice = await session('alice');
    const response = await fetch(`${deployment.url}/ai-sdk/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id: `raw-${randomUUID()}`,
        messages: [userMessage('hello there')],
        trigger: 'submit-message',
        agent_id: deployment.agentId,
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await rawBody(response)).split('\n\n').filter(Boolean);
    expect(frames[frames.length - 1]).toBe('data: [DONE]');
    for (const frame of frames.slice(0, -1)) expect(frame).toMatch(/^id: \d+\ndata: \{.*\}$/);
    expect(JSON.parse(frames[0].split('data: ')[1])).toMatchObject({ type: 'start' });
  });

  it('assembles a message equal to the stored reply', async () => {
    const alice = await session('alice');
    const { message, errors } = await assemble(
      await send(alice, `chat-${randomUUID()}`, 'tell me something'),
    );
    expect(errors).toEqual([]);
    const { reply } = await storedReply('alice', message.id);
    expect(reply.status).toBe('success');
    expect(message.role).toBe('assistant');
    expect(textOf(message)).toBe(reply.content);
    expect(reply.content.length).toBeGreaterThan(0);
  });

  it('shows a tool call and its result as a tool part', async () => {
    const alice = await session('alice');
    const { message } = await assemble(await send(alice, `chat-${randomUUID()}`, '/tool clock {}'));
    const { reply } = await storedReply('alice', message.id);
    const call = reply.events.find((event: { type: string }) => event.type === 'tool.call');
    const result = reply.events.find((event: { type: string }) => event.type === 'tool.result');
    const tool = message.parts.find((part) => part.type === 'dynamic-tool');
    expect(tool).toMatchObject({
      type: 'dynamic-tool',
      toolName: 'clock',
      toolCallId: call.call_id,
      state: 'output-available',
      input: call.arguments,
      output: result.output,
    });
    expect(message.parts.filter((part) => part.type === 'step-start')).toHaveLength(2);
    expect(textOf(message)).toBe(reply.content);
  });

  it('posts follow-ups with the same chat id to one thread', async () => {
    const alice = await session('alice');
    const chatId = `chat-${randomUUID()}`;
    const first = await assemble(await send(alice, chatId, '/say first answer'));
    const second = await assemble(await send(alice, chatId, '/say second answer'));
    expect(textOf(first.message)).toBe('first answer');
    expect(textOf(second.message)).toBe('second answer');
    const { thread } = await storedReply('alice', second.message.id);
    expect(thread.messages.map((message: { id: string }) => message.id)).toEqual([
      expect.any(String),
      first.message.id,
      expect.any(String),
      second.message.id,
    ]);
  });

  it("continues a thread listed by GET /chat when its id is the chat id (another user's is a new chat)", async () => {
    const alice = await session('alice');
    const first = await assemble(await send(alice, `chat-${randomUUID()}`, '/say started elsewhere'));
    const { thread } = await storedReply('alice', first.message.id);
    const next = await assemble(await send(alice, thread.id, '/say continued'));
    expect((await storedReply('alice', next.message.id)).thread.id).toBe(thread.id);
    const bob = await session('bob');
    const bobs = await assemble(await send(bob, thread.id, '/say not yours'));
    expect((await storedReply('bob', bobs.message.id)).thread.id).not.toBe(thread.id);
  });

  it('shows an /ask prompt once, as a data-parley-questions part', async () => {
    const alice = await session('alice');
    const { message } = await assemble(
      await send(alice, `chat-${randomUUID()}`, '/ask Which one? | Red | Blue'),
    );
    const questions = message.parts.filter((part) => part.type === 'data-parley-questions');
    expect(questions).toEqual([
      {
        type: 'data-parley-questions',
        data: { questions: [{ prompt: 'Which one?', options: ['Red', 'Blue'] }] },
      },
    ]);
  });

  it('reports a failed reply as an error saying why, then finishes', async () => {
    const alice = await session('alice');
    const chunks = await chunksOf(await send(alice, `chat-${randomUUID()}`, '/fail'));
    const start = chunks.find((chunk) => chunk.type === 'start') as { messageId: string };
    const { reply } = await storedReply('alice', start.messageId);
    expect(reply.status).toBe('error');
    expect(chunks.slice(-2)).toEqual([{ type: 'error', errorText: reply.content }, { type: 'finish' }]);
  });

  it('needs user_id with a service key (422), and an agent for a new chat', async () => {
    const body = {
      id: 'k',
      messages: [userMessage('hi')],
      trigger: 'submit-message',
      agent_id: deployment.agentId,
    };
    const noUser = await service.post('/ai-sdk/chat', body);
    expect(noUser.status).toBe(422);
    expect(noUser.body.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'user_id'] });
    const noAgent = await service.post('/ai-sdk/chat', { ...body, agent_id: undefined, user_id: 'alice' });
    expect(noAgent.status).toBe(422);
    expect(noAgent.body.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'agent_id'] });
  });
});

describe('resume and stop', () => {
  const SLOW = '/sleep 150\n/say one two three four five six seven eight';

  it('resumes a live reply from its start with the same bytes, and answers 204 once it ended', async () => {
    const alice = await session('alice');
    const chatId = `chat-${randomUUID()}`;
    const headers = { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' };
    const first = await fetch(`${deployment.url}/ai-sdk/chat`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        id: chatId,
        messages: [userMessage(SLOW)],
        trigger: 'submit-message',
        agent_id: deployment.agentId,
      }),
    });
    const firstReader = first.body!.getReader();
    const decoder = new TextDecoder();
    // The reply is running once its first bytes came.
    let firstBytes = decoder.decode((await firstReader.read()).value, { stream: true });
    const resumed = await alice.transport.reconnectToStream({ chatId });
    expect(resumed).not.toBeNull();
    const [{ message }, rawResume] = await Promise.all([
      assemble(resumed!),
      fetch(`${deployment.url}/ai-sdk/chat/${chatId}/stream`, { headers }).then(rawBody),
    ]);
    for (let part = await firstReader.read(); !part.done; part = await firstReader.read()) {
      firstBytes += decoder.decode(part.value, { stream: true });
    }
    const { reply } = await storedReply('alice', message.id);
    expect(textOf(message)).toBe('one two three four five six seven eight');
    expect(textOf(message)).toBe(reply.content);
    // One translation of the same lines: the resumed stream is the first one, byte for byte.
    expect(rawResume).toBe(firstBytes);
    expect(rawResume).toMatch(/^id: 0\ndata: \{"type":"start"/);
    expect(await alice.transport.reconnectToStream({ chatId })).toBeNull();
  });

  it('stops a live reply: its stream ends with abort, the thread stays', async () => {
    const alice = await session('alice');
    const chatId = `chat-${randomUUID()}`;
    const stream = await send(alice, chatId, SLOW);
    const reader = stream.getReader();
    const seen: UIMessageChunk[] = [];
    while (!seen.some((chunk) => chunk.type === 'text-delta')) seen.push((await reader.read()).value!);
    const stop = await fetch(`${deployment.url}/ai-sdk/chat/${chatId}/stop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}` },
    });
    expect(stop.status).toBe(204);
    for (let part = await reader.read(); !part.done; part = await reader.read()) seen.push(part.value);
    expect(seen[seen.length - 1]).toEqual({ type: 'abort' });
    const start = seen[0] as { messageId: string };
    const { reply } = await storedReply('alice', start.messageId);
    expect(reply.status).toBe('cancelled');
    // The chat goes on in the same thread.
    const next = await assemble(await send(alice, chatId, '/say still here'));
    expect(textOf(next.message)).toBe('still here');
  });

  it("answers another end user's chat id as unknown (404)", async () => {
    const alice = await session('alice');
    const bob = await session('bob');
    const chatId = `chat-${randomUUID()}`;
    await assemble(await send(alice, chatId, '/say mine'));
    await expect(bob.transport.reconnectToStream({ chatId })).rejects.toThrow(/Chat not found/);
    const stop = await fetch(`${deployment.url}/ai-sdk/chat/${chatId}/stop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob.token}` },
    });
    expect(stop.status).toBe(404);
    expect(await stop.json()).toEqual({ detail: 'Chat not found' });
    // Bob's message with that id starts Bob's own thread; Alice's stays hers alone.
    const bobs = await assemble(await send(bob, chatId, '/say yours'));
    expect((await storedReply('bob', bobs.message.id)).thread.messages).toHaveLength(2);
  });
});

const toolPart = (message: UIMessage | undefined): DynamicToolUIPart | undefined => toolParts(message)[0];

describe('tool approvals (CONTRACTS §17, §19)', () => {
  let carefulAgentId: string;

  beforeAll(async () => {
    const created = await service.post('/agents', { name: 'Careful', approval_required: ['clock'] });
    expect(created.status).toBe(200);
    carefulAgentId = created.body.id as string;
  });

  /** A chat whose first request ended at the approval request, as streamText ends it. */
  async function waitingChat(
    user: Session,
  ): Promise<{ chat: MemoryChat; approvalId: string; replyId: string }> {
    const chat = new MemoryChat(deployment.url, user.token, carefulAgentId);
    // Resolves only once the response ended: the reply waits, the request does not.
    await chat.sendMessage({ text: '/tool clock {}' });
    expect(chat.status).toBe('ready');
    expect(chat.error).toBeUndefined();
    const reply = chat.lastMessage!;
    expect(reply.role).toBe('assistant');
    const tool = toolPart(reply);
    expect(tool).toMatchObject({ toolName: 'clock', state: 'approval-requested' });
    expect(lastAssistantMessageIsCompleteWithApprovalResponses({ messages: chat.messages })).toBe(false);
    expect(chat.autoSend).not.toContain(true);
    const approval = (tool as { approval: { id: string } }).approval;
    const stored = await storedReply(user.userId, reply.id);
    expect(stored.reply.status).toBe('requires_action');
    return { chat, approvalId: approval.id, replyId: reply.id };
  }

  it('ends the first request at the approval request; the answer, sent automatically, completes the reply', async () => {
    const alice = await session('alice');
    const { chat, approvalId, replyId } = await waitingChat(alice);
    await chat.addToolApprovalResponse({ id: approvalId, approved: true });
    expect(chat.autoSend.at(-1)).toBe(true);
    await until(
      () => chat.status === 'ready' && toolPart(chat.lastMessage)?.state === 'output-available',
      20000,
    );
    const { reply } = await storedReply('alice', replyId);
    expect(reply.status).toBe('success');
    const result = reply.events.find((event: { type: string }) => event.type === 'tool.result');
    expect(result.output).not.toMatchObject({ denied: true });
    // One assistant message, its tool part now holding the tool's output, then the text.
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(chat.lastMessage!.id).toBe(replyId);
    expect(toolPart(chat.lastMessage)!.output).toEqual(result.output);
    expect(textOf(chat.lastMessage!)).toBe(reply.content);
    expect(reply.content.length).toBeGreaterThan(0);
  });

  it("gives the model the denial, and the front end the AI SDK's output-denied", async () => {
    const bob = await session('bob');
    const { chat, approvalId, replyId } = await waitingChat(bob);
    await chat.addToolApprovalResponse({ id: approvalId, approved: false, reason: 'not now' });
    await until(() => chat.status === 'ready' && textOf(chat.lastMessage!).length > 0, 20000);
    const { reply } = await storedReply('bob', replyId);
    expect(reply.status).toBe('success');
    const result = reply.events.find((event: { type: string }) => event.type === 'tool.result');
    expect(result.output).toEqual({ denied: true, reason: 'not now' });
    expect(toolPart(chat.lastMessage)).toMatchObject({
      state: 'output-denied',
      approval: { id: approvalId, approved: false, reason: 'not now' },
    });
    // A reloaded page, which folds the whole stored reply, shows the call denied too.
    const history = await service.get(`/ai-sdk/chat/${chat.id}/messages?user_id=bob`);
    expect(toolPart(history.body.at(-1))).toMatchObject({ state: 'output-denied' });
    expect(reply.content).toContain('denied');
    expect(textOf(chat.lastMessage!)).toBe(reply.content);
  });

  it('ends the resumed stream of a waiting reply at its approval request too', async () => {
    const carol = await session('carol');
    const { chat } = await waitingChat(carol);
    const resumed = await carol.transport.reconnectToStream({ chatId: chat.id });
    expect(resumed).not.toBeNull();
    const chunks = await chunksOf(resumed!);
    expect(chunks.slice(-3).map((chunk) => chunk.type)).toEqual([
      'tool-approval-request',
      'finish-step',
      'finish',
    ]);
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
    const raw = await fetch(`${deployment.url}/ai-sdk/chat/${chat.id}/stream`, {
      headers: { authorization: `Bearer ${carol.token}` },
    }).then(rawBody);
    expect(raw.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });
});
