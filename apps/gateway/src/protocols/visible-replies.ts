import { Injectable } from '@nestjs/common';
import { isRowId, NotFoundError } from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import { MessageEntity, MessageRepository, ThreadEntity, ThreadRepository } from '@app/persistence';

export interface VisibleReply {
  reply: MessageEntity;
  thread: ThreadEntity;
}

/**
 * The reply an id names when the caller may see it: its organization, its end user when one is named or the
 * caller is an end-user token, an agent the token may use, a thread not archived. Anything else is null, for the
 * protocol to answer as it says "not found".
 */
@Injectable()
export class VisibleReplies {
  constructor(
    private readonly messages: MessageRepository,
    private readonly threads: ThreadRepository,
  ) {}

  async find(caller: Caller, replyId: string, userId?: string): Promise<VisibleReply | null> {
    const reply = isRowId(replyId) ? await this.messages.find({ orgId: caller.orgId }, replyId) : null;
    if (!reply || reply.role !== 'assistant') return null;
    const owner = caller.endUser?.userId ?? userId;
    const thread = await this.threads.findVisible({ orgId: caller.orgId, userId: owner }, reply.threadId);
    if (!thread || !mayUseAgent(caller, thread.agentId)) return null;
    return { reply, thread };
  }

  /** As find, or the NotFoundError `detail`. */
  async get(caller: Caller, replyId: string, detail: string, userId?: string): Promise<VisibleReply> {
    const found = await this.find(caller, replyId, userId);
    if (!found) throw new NotFoundError(detail);
    return found;
  }
}
