import { Injectable } from '@nestjs/common';
import { Caller } from '@app/identity';
import { MessageEntity, MessageRepository, ThreadEntity } from '@app/persistence';
import { VisibleReplies } from '../visible-replies';
import { replyIdOf, ResponseHeader, responseIdOf } from './response-translation';

export const RESPONSE_NOT_FOUND = 'Response not found';

export interface ResponseReply {
  reply: MessageEntity;
  thread: ThreadEntity;
  header: ResponseHeader;
}

/**
 * The reply a response id names, if the caller may see it (its organization, its end user when one is named or
 * the caller is an end-user token, an agent the token may use, a thread not archived), with the Response's
 * header. Anything else is 404, as if it did not exist.
 */
@Injectable()
export class ResponseReplies {
  constructor(
    private readonly messages: MessageRepository,
    private readonly visible: VisibleReplies,
  ) {}

  async find(caller: Caller, responseId: string, userId?: string): Promise<ResponseReply> {
    const replyId = replyIdOf(responseId) ?? '';
    const { reply, thread } = await this.visible.get(caller, replyId, RESPONSE_NOT_FOUND, userId);
    // The reply before it on its branch is what a follow-up continued (CONTRACTS §18 previous_response_id).
    const previousId = await this.messages.previousReplyId({ orgId: caller.orgId }, reply);
    return {
      reply,
      thread,
      header: {
        id: responseIdOf(reply.id),
        created_at: Math.floor(reply.createdAt.getTime() / 1000),
        model: reply.agentId ?? thread.agentId,
        previous_response_id: previousId ? responseIdOf(previousId) : null,
        user: thread.userId,
        metadata: reply.metadata ?? {},
      },
    };
  }
}
