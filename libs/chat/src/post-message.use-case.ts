import { Injectable, Logger } from '@nestjs/common';
import { maxStepsOf, Settings } from '@app/config';
import {
  InvalidInputError,
  MessageResponse,
  PostMessageDto,
  toMessageResponse,
  valueErrorIssue,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { AgentVersionRepository, IdempotentWrite, MessageRepository } from '@app/persistence';
import { FileAttachments } from '@app/files';
import { exchangeOf, pinnedAgentVersion, ProtocolReplyOptions } from './chat.rules';
import { ThreadReplies } from './thread-replies';

export interface PostMessageInput extends ProtocolReplyOptions {
  threadId: string;
  /** `user_id` of the query string, if any. */
  userId?: string;
  body: PostMessageDto;
}

/**
 * POST /chat/{thread_id}: a follow-up message and its pending reply, which is what the caller streams. While the
 * thread has a live reply, `multitask_strategy` decides (CONTRACTS §12): queue behind it, refuse, or cancel it.
 * The decision is taken under the thread's row lock, so two concurrent follow-ups see each other.
 */
@Injectable()
export class PostMessage {
  private readonly logger = new Logger(PostMessage.name);

  constructor(
    private readonly settings: Settings,
    private readonly versions: AgentVersionRepository,
    private readonly messages: MessageRepository,
    private readonly attachments: FileAttachments,
    private readonly replies: ThreadReplies,
  ) {}

  execute(caller: Caller, input: PostMessageInput, idempotency?: IdempotentWrite): Promise<MessageResponse> {
    const options = input.body.options ?? {};
    const { message } = input.body;
    const strategy = options.multitask_strategy ?? 'enqueue';

    // The thread's lock orders concurrent follow-ups (positions never clash) and an archive racing with this call.
    return this.replies.add(caller, input, idempotency, this.logger, async (tx, scope, thread, prepare) => {
      // Spec 4.2 rule 4: the namespace was bound at the start. A null is read as "not given".
      if (options.memory_namespace != null && options.memory_namespace !== thread.memoryNamespace) {
        throw new InvalidInputError([
          valueErrorIssue(
            ['body', 'options', 'memory_namespace'],
            options.memory_namespace,
            "a thread's memory namespace cannot be changed",
          ),
        ]);
      }
      // Files must be the thread owner's (CONTRACTS §8), whoever the call names.
      await this.attachments.requireUploaded(
        { orgId: caller.orgId, userId: thread.userId },
        message.file_ids ?? [],
      );
      const { agent, cleared } = await prepare(strategy);
      const agentVersion = await pinnedAgentVersion(
        this.versions,
        agent,
        options.agent_version,
        tx,
        input.agentVersionAt,
      );
      const { reply } = await this.messages.addExchange(
        tx,
        scope,
        thread,
        exchangeOf(message, {
          agentId: agent.id,
          maxSteps: maxStepsOf(this.settings, options.max_steps),
          agentVersion,
          metadata: input.replyMetadata,
        }),
      );
      return { reply, response: toMessageResponse(reply, agent), cleared };
    });
  }
}
