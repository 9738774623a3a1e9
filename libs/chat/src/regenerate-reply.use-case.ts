import { Injectable, Logger } from '@nestjs/common';
import { maxStepsOf, Settings } from '@app/config';
import {
  InvalidInputError,
  MessageResponse,
  NotFoundError,
  RegenerateReplyDto,
  toMessageResponse,
  valueErrorIssue,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { Db, IdempotentWrite, MessageEntity, MessageRepository, Scope, ThreadEntity } from '@app/persistence';
import { branchStrategy } from './chat.rules';
import { ThreadReplies } from './thread-replies';
import { MESSAGE_NOT_FOUND } from './decide-approval.use-case';

export interface RegenerateReplyInput {
  threadId: string;
  /** `user_id` of the query string, if any. */
  userId?: string;
  body: RegenerateReplyDto;
}

/**
 * POST /chat/{thread_id}/regenerate (CONTRACTS §19): a new pending reply to the user message of a reply (by
 * default the last reply of the active branch), answered like a follow-up. The replaced reply and what followed
 * it stay stored, as another branch; the new reply is the active leaf, and its run sees its branch only, so the
 * replaced reply's steps are neither shown to it nor run again.
 */
@Injectable()
export class RegenerateReply {
  private readonly logger = new Logger(RegenerateReply.name);

  constructor(
    private readonly settings: Settings,
    private readonly messages: MessageRepository,
    private readonly replies: ThreadReplies,
  ) {}

  execute(
    caller: Caller,
    input: RegenerateReplyInput,
    idempotency?: IdempotentWrite,
  ): Promise<MessageResponse> {
    const options = input.body.options ?? {};
    return this.replies.add(caller, input, idempotency, this.logger, async (tx, scope, thread, prepare) => {
      const replaced = await this.replacedReply(tx, scope, thread, input.body.message_id ?? null);
      const question = replaced.replyToId
        ? await this.messages.findInThread(scope, thread.id, replaced.replyToId, tx)
        : null;
      if (!question) throw new NotFoundError(MESSAGE_NOT_FOUND);
      const { agent, cleared } = await prepare(branchStrategy(options.multitask_strategy));
      const reply = await this.messages.addReply(tx, scope, thread, question, {
        agentId: agent.id,
        maxSteps: maxStepsOf(this.settings, options.max_steps),
      });
      return { reply, response: toMessageResponse(reply, agent), cleared };
    });
  }

  /** The reply to replace: the one named (an assistant reply of the thread, on any branch), else the last shown. */
  private async replacedReply(
    tx: Db,
    scope: Scope,
    thread: ThreadEntity,
    messageId: string | null,
  ): Promise<MessageEntity> {
    if (messageId === null) {
      const shown = await this.messages.listActiveBranch(scope, thread.id, tx);
      const last = shown.filter((message) => message.role === 'assistant').pop();
      if (!last) throw new NotFoundError(MESSAGE_NOT_FOUND);
      return last;
    }
    const named = await this.messages.findInThread(scope, thread.id, messageId, tx);
    if (!named) throw new NotFoundError(MESSAGE_NOT_FOUND);
    if (named.role !== 'assistant') {
      throw new InvalidInputError([
        valueErrorIssue(['body', 'message_id'], messageId, 'the message is not an assistant reply'),
      ]);
    }
    return named;
  }
}
