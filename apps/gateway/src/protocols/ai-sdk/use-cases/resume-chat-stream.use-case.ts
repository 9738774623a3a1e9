import { Injectable } from '@nestjs/common';
import { Caller } from '@app/identity';
import { AiSdkChatRepository, MessageRepository } from '@app/persistence';
import { OpenReplyStream } from '../../../reply-stream/open-reply-stream.use-case';
import { chatOwner, chatThreadId } from '../chat-owner';
import { ChatReplyStream } from '../ui-message-sse';

/**
 * GET /ai-sdk/chat/{id}/stream, what `useChat({resume: true})` calls: the chat's live reply from its start,
 * live to its end; null (204) when nothing is live.
 */
@Injectable()
export class ResumeChatStream {
  constructor(
    private readonly chats: AiSdkChatRepository,
    private readonly messages: MessageRepository,
    private readonly openReplyStream: OpenReplyStream,
  ) {}

  async execute(caller: Caller, chatId: string, userId?: string): Promise<ChatReplyStream | null> {
    const owner = chatOwner(caller, userId, ['query', 'user_id']);
    const threadId = await chatThreadId(this.chats, owner, chatId);
    const live = await this.messages.liveReplies(owner, threadId);
    // The newest live reply answers the user's last message, the one the front end waits for.
    const reply = live[live.length - 1];
    if (!reply) return null;
    const lines = await this.openReplyStream.execute(caller, { messageId: reply.id, userId: owner.userId });
    return { replyId: reply.id, lines };
  }
}
