import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  ConflictError,
  InvalidInputError,
  NotFoundError,
  SetActiveBranchDto,
  ThreadResponse,
  valueErrorIssue,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { AgentRepository, MessageRepository, ThreadRepository } from '@app/persistence';
import { FileAttachments } from '@app/files';
import { lockThread, THREAD_HAS_LIVE_REPLY, threadScope } from './chat.rules';
import { MESSAGE_NOT_FOUND } from './decide-approval.use-case';
import { activeBranchView, ThreadViewReaders } from './thread-view';

interface SetActiveBranchInput {
  threadId: string;
  userId?: string;
  body: SetActiveBranchDto;
}

/**
 * PUT /chat/{thread_id}/branches/active (CONTRACTS §19): the thread shows, and a follow-up continues, the branch
 * ending at the given leaf. Refused (409) while a reply is live: the live reply's branch stays the one shown
 * until it ends.
 */
@Injectable()
export class SetActiveBranch {
  constructor(
    private readonly db: DataSource,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentRepository,
    private readonly attachments: FileAttachments,
  ) {}

  async execute(caller: Caller, input: SetActiveBranchInput): Promise<ThreadResponse> {
    const leafId = input.body.leaf_message_id;
    const scope = threadScope(caller, input.userId);
    return this.db.transaction(async (tx) => {
      const thread = await lockThread(tx, caller, scope, input.threadId, this.threads);
      const leaf = await this.messages.findInThread(scope, thread.id, leafId, tx);
      if (!leaf) throw new NotFoundError(MESSAGE_NOT_FOUND);
      if (await this.messages.hasFollower(scope, thread.id, leaf.id, tx)) {
        throw new InvalidInputError([
          valueErrorIssue(['body', 'leaf_message_id'], leafId, 'the message is not the leaf of a branch'),
        ]);
      }
      if ((await this.messages.liveReplies(scope, thread.id, tx)).length > 0) {
        throw new ConflictError(THREAD_HAS_LIVE_REPLY);
      }
      await this.messages.setActiveLeaf(tx, scope, thread.id, leaf.id);
      thread.activeLeafId = leaf.id;
      return activeBranchView(scope, thread, this.readers(), tx);
    });
  }

  private readers(): ThreadViewReaders {
    return { messages: this.messages, agents: this.agents, attachments: this.attachments };
  }
}
