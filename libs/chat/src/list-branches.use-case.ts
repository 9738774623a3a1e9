import { Injectable } from '@nestjs/common';
import { BranchResponse, NotFoundError } from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import { MessageEntity, MessageRepository, ThreadRepository } from '@app/persistence';
import { THREAD_NOT_FOUND, threadScope } from './chat.rules';

interface ListBranchesInput {
  threadId: string;
  userId?: string;
}

/**
 * GET /chat/{thread_id}/branches (CONTRACTS §19): one item per leaf of the thread's message tree, in the order
 * the leaves were stored. A branch's fork is the nearest message it shares with another branch where the two
 * part (null when they part at the thread's first message, or nothing ever forked); it began with its first
 * message after that fork.
 */
@Injectable()
export class ListBranches {
  constructor(
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
  ) {}

  async execute(caller: Caller, input: ListBranchesInput): Promise<BranchResponse[]> {
    const scope = threadScope(caller, input.userId);
    const thread = await this.threads.findVisible(scope, input.threadId);
    if (!thread || !mayUseAgent(caller, thread.agentId)) throw new NotFoundError(THREAD_NOT_FOUND);
    return branchesOf(await this.messages.listByThread(scope, thread.id), thread.activeLeafId);
  }
}

/** The branches of a thread's messages (in position order): each leaf, where it forks, when it began. */
export function branchesOf(messages: MessageEntity[], activeLeafId: string | null): BranchResponse[] {
  const byId = new Map(messages.map((message) => [message.id, message]));
  const followers = new Map<string | null, number>();
  for (const message of messages) followers.set(message.parentId, (followers.get(message.parentId) ?? 0) + 1);
  return messages
    .filter((message) => !followers.has(message.id))
    .map((leaf) => {
      let first = leaf;
      while (
        first.parentId !== null &&
        (followers.get(first.parentId) ?? 0) < 2 &&
        byId.has(first.parentId)
      ) {
        first = byId.get(first.parentId)!;
      }
      const forked = (followers.get(first.parentId) ?? 0) > 1;
      return {
        leaf_message_id: leaf.id,
        fork_message_id: forked ? first.parentId : null,
        created_at: first.createdAt.toISOString(),
        active: leaf.id === activeLeafId,
      };
    });
}
