import { randomUUID } from 'node:crypto';
import {
  AbstractChat,
  ChatState,
  ChatStatus,
  DefaultChatTransport,
  DynamicToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  UIMessage,
} from 'ai';

/** useChat's state kept in memory, as a framework binding keeps it in its own store. */
class MemoryChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((kept, at) => (at === index ? message : kept));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/**
 * The chat class useChat wraps, talking to a gateway's AI SDK endpoint with an end user's token, the answers to
 * approval requests sent automatically once every waiting call has one (as the AI SDK's docs set it up).
 */
export class MemoryChat extends AbstractChat<UIMessage> {
  /** What sendAutomaticallyWhen answered, each time the chat asked. */
  readonly autoSend: boolean[] = [];

  constructor(gatewayUrl: string, token: string, agentId: string) {
    const autoSend: boolean[] = [];
    super({
      id: `chat-${randomUUID()}`,
      state: new MemoryChatState(),
      transport: new DefaultChatTransport<UIMessage>({
        api: `${gatewayUrl}/ai-sdk/chat`,
        headers: { authorization: `Bearer ${token}` },
        body: { agent_id: agentId },
      }),
      sendAutomaticallyWhen: (options) => {
        const send = lastAssistantMessageIsCompleteWithApprovalResponses(options);
        autoSend.push(send);
        return send;
      },
    });
    this.autoSend = autoSend;
  }
}

/** The tool parts of a message (the AI SDK's dynamic tools: ours are not declared on the client). */
export const toolParts = (message: UIMessage | undefined): DynamicToolUIPart[] =>
  message?.parts.filter((part): part is DynamicToolUIPart => part.type === 'dynamic-tool') ?? [];

/**
 * A first message to the AI SDK endpoint, as useChat sends it with an end user's token (minted by the service
 * client); answers the reply's id from the stream's `start` part, and the chat's id and headers for its stop.
 */
export async function startAiSdkChat(
  gatewayUrl: string,
  client: { post: (path: string, body: unknown) => Promise<{ body: any }> },
  userId: string,
  agentId: string,
  text: string,
): Promise<{ chatId: string; headers: Record<string, string>; replyId: string }> {
  const minted = await client.post('/end-user-tokens', { user_id: userId });
  const headers = { authorization: `Bearer ${minted.body.token}`, 'content-type': 'application/json' };
  const chatId = `chat-${Date.now()}`;
  const started = await fetch(`${gatewayUrl}/ai-sdk/chat`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      id: chatId,
      messages: [{ id: 'q1', role: 'user', parts: [{ type: 'text', text }] }],
      trigger: 'submit-message',
      agent_id: agentId,
    }),
  });
  const replyId = /"type":"start","messageId":"([^"]+)"/.exec(await started.text())![1];
  return { chatId, headers, replyId };
}

/** The AI SDK's stop of a chat started by startAiSdkChat. */
export const stopAiSdkChat = (
  gatewayUrl: string,
  chat: { chatId: string; headers: Record<string, string> },
) => fetch(`${gatewayUrl}/ai-sdk/chat/${chat.chatId}/stop`, { method: 'POST', headers: chat.headers });
