import { Injectable } from '@nestjs/common';
import type { UIMessage, UIMessageChunk } from 'ai';
import { Caller } from '@app/identity';
import { AiSdkChatRepository, MessageEntity, MessageRepository } from '@app/persistence';
import { storedReplyLines } from '@app/run-events';
import { chatOwner, chatThreadId } from '../chat-owner';
import { toUiMessageChunks, UI_STREAM_START } from '../ui-message-stream';

/**
 * GET /ai-sdk/chat/{id}/messages: the chat's conversation as `useChat` shows it, for a page that reloads (it
 * knows its chat id, not the thread). The messages of the branch the thread shows, oldest first; a reply still
 * live is left out, since `useChat({resume: true})` streams it. Each reply is its stored lines translated as its
 * stream was and folded by the AI SDK's own reader, so a reloaded page shows exactly what the live one did.
 */
@Injectable()
export class LoadChatMessages {
  constructor(
    private readonly chats: AiSdkChatRepository,
    private readonly messages: MessageRepository,
  ) {}

  async execute(caller: Caller, chatId: string, userId?: string): Promise<UIMessage[]> {
    const owner = chatOwner(caller, userId, ['query', 'user_id']);
    const threadId = await chatThreadId(this.chats, owner, chatId);
    const branch = await this.messages.listActiveBranch(owner, threadId);
    const shown: UIMessage[] = [];
    for (const message of branch) {
      if (message.live) continue;
      shown.push(message.role === 'user' ? userMessage(message) : await assistantMessage(message));
    }
    return shown;
  }
}

const userMessage = (message: MessageEntity): UIMessage => ({
  id: message.id,
  role: 'user',
  parts: [{ type: 'text', text: message.content }],
});

async function assistantMessage(reply: MessageEntity): Promise<UIMessage> {
  // Loaded here, on the first history asked for: the gateway needs only this reader of the package.
  const { readUIMessageStream } = await import('ai');
  const ended = { status: reply.status, content: reply.content, error_code: reply.errorCode };
  let state = UI_STREAM_START;
  const chunks: UIMessageChunk[] = [];
  for (const line of storedReplyLines(reply, ended)) {
    const translated = toUiMessageChunks(state, line);
    state = translated.state;
    chunks.push(...translated.chunks);
  }
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let folded: UIMessage = { id: reply.id, role: 'assistant', parts: [] };
  // An ended reply's `error` chunk is how its stream said so: useChat keeps no part of it either.
  for await (const snapshot of readUIMessageStream({ stream, onError: () => undefined })) folded = snapshot;
  return folded;
}
