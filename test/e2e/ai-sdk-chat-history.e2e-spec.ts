import { randomUUID } from 'node:crypto';
import { DefaultChatTransport, readUIMessageStream, UIMessage, UIMessageChunk } from 'ai';
import { useDeployment } from '../support/deployment';

/**
 * A reloaded page gets its conversation back by its chat id (issue 46 item 5): GET /ai-sdk/chat/{id}/messages
 * answers the UI messages the live page showed, driven by the real `ai` package's transport and reader.
 */
const deployment = useDeployment({ workers: 1, workerEnv: { WORKER_HEALTH_PORT: '0' }, agent: true });

async function tokenOf(userId: string): Promise<string> {
  return (await deployment.client().post('/end-user-tokens', { user_id: userId })).body.token as string;
}

/** Sends one message as useChat does and answers the assistant message its stream assembled. */
async function sendAndAssemble(token: string, chatId: string, text: string): Promise<UIMessage> {
  const transport = new DefaultChatTransport<UIMessage>({
    api: `${deployment.url}/ai-sdk/chat`,
    headers: { authorization: `Bearer ${token}` },
    body: { agent_id: deployment.agentId },
  });
  const stream: ReadableStream<UIMessageChunk> = await transport.sendMessages({
    chatId,
    messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] }],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream<UIMessage>({ stream })) message = snapshot;
  return message!;
}

const history = (token: string, chatId: string) =>
  fetch(`${deployment.url}/ai-sdk/chat/${encodeURIComponent(chatId)}/messages`, {
    headers: { authorization: `Bearer ${token}` },
  });

describe('GET /ai-sdk/chat/{id}/messages', () => {
  it('answers the conversation as the live page showed it, oldest first', async () => {
    const token = await tokenOf('alice');
    const chatId = `chat-${randomUUID()}`;
    const first = await sendAndAssemble(token, chatId, '/say hello from the first turn');
    const second = await sendAndAssemble(token, chatId, '/say and a second answer');
    const response = await history(token, chatId);
    expect(response.status).toBe(200);
    const messages = (await response.json()) as UIMessage[];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[0].parts).toEqual([{ type: 'text', text: '/say hello from the first turn' }]);
    expect(messages[2].parts).toEqual([{ type: 'text', text: '/say and a second answer' }]);
    // Each reply exactly as the AI SDK assembled it from its live stream: same id, same parts.
    expect(messages[1]).toEqual(JSON.parse(JSON.stringify(first)));
    expect(messages[3]).toEqual(JSON.parse(JSON.stringify(second)));
    const texts = messages[3].parts.flatMap((part) => (part.type === 'text' ? [part.text] : []));
    expect(texts.join('')).toBe('and a second answer');
  });

  it("is 404 for another end user's chat id, exactly as for an unknown one", async () => {
    const alice = await tokenOf('alice');
    const chatId = `chat-${randomUUID()}`;
    await sendAndAssemble(alice, chatId, '/say mine');
    const bob = await tokenOf('bob');
    const foreign = await history(bob, chatId);
    const unknown = await history(bob, `chat-${randomUUID()}`);
    expect([foreign.status, unknown.status]).toEqual([404, 404]);
    expect(await foreign.json()).toEqual(await unknown.json());
  });

  it('takes user_id with a service key, and requires it', async () => {
    const alice = await tokenOf('alice');
    const chatId = `chat-${randomUUID()}`;
    await sendAndAssemble(alice, chatId, '/say by key');
    const service = deployment.client();
    const listed = await service.get(`/ai-sdk/chat/${chatId}/messages?user_id=alice`);
    expect(listed.status).toBe(200);
    expect((listed.body as UIMessage[]).length).toBe(2);
    expect((await service.get(`/ai-sdk/chat/${chatId}/messages`)).status).toBe(422);
  });
});
