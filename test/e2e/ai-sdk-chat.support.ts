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
