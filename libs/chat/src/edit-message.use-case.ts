import { Injectable, Logger } from '@nestjs/common';
import { maxStepsOf, Settings } from '@app/config';
import {
  EditMessageDto,
  InvalidInputError,
  NotFoundError,
  ThreadResponse,
  valueErrorIssue,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { AgentRepository, IdempotentWrite, MessageRepository } from '@app/persistence';
import { FileAttachments } from '@app/files';
import { branchStrategy, exchangeOf } from './chat.rules';
import { ThreadReplies } from './thread-replies';
import { MESSAGE_NOT_FOUND } from './decide-approval.use-case';
import { activeBranchView, ThreadViewReaders } from './thread-view';

export interface EditMessageInput {
  threadId: string;
  /** `user_id` of the query string, if any. */
  userId?: string;
  body: EditMessageDto;
}

/**
 * POST /chat/{thread_id}/edit (CONTRACTS §19): a new user message in the place of one of the thread's (it
 * follows what that one followed) and a pending reply to it, which become the active branch; the edited message
 * and what followed it stay stored, as another branch. Answers the thread as it now shows.
 */
@Injectable()
export class EditMessage {
  private readonly logger = new Logger(EditMessage.name);

  constructor(
    private readonly settings: Settings,
    private readonly agents: AgentRepository,
    private readonly messages: MessageRepository,
    private readonly attachments: FileAttachments,
    private readonly replies: ThreadReplies,
  ) {}

  execute(caller: Caller, input: EditMessageInput, idempotency?: IdempotentWrite): Promise<ThreadResponse> {
    const { body } = input;
    const options = body.options ?? {};
    return this.replies.add(caller, input, idempotency, this.logger, async (tx, scope, thread, prepare) => {
      const edited = await this.messages.findInThread(scope, thread.id, body.message_id, tx);
      if (!edited) throw new NotFoundError(MESSAGE_NOT_FOUND);
      if (edited.role !== 'user') {
        throw new InvalidInputError([
          valueErrorIssue(['body', 'message_id'], body.message_id, 'the message is not a user message'),
        ]);
      }
      // Files must be the thread owner's (CONTRACTS §8), whoever the call names.
      await this.attachments.requireUploaded(
        { orgId: caller.orgId, userId: thread.userId },
        body.message.file_ids ?? [],
      );
      const { agent, cleared } = await prepare(branchStrategy(options.multitask_strategy));
      const { reply } = await this.messages.addExchange(
        tx,
        scope,
        thread,
        exchangeOf(body.message, {
          agentId: agent.id,
          maxSteps: maxStepsOf(this.settings, options.max_steps),
        }),
        edited.parentId,
      );
      return { reply, response: await activeBranchView(scope, thread, this.readers(), tx), cleared };
    });
  }

  private readers(): ThreadViewReaders {
    return { messages: this.messages, agents: this.agents, attachments: this.attachments };
  }
}
