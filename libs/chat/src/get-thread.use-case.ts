import { Injectable } from '@nestjs/common';
import { NotFoundError, ThreadResponse } from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import { AgentRepository, MessageRepository, ThreadRepository } from '@app/persistence';
import { FileAttachments } from '@app/files';
import { THREAD_NOT_FOUND, threadScope } from './chat.rules';
import { activeBranchView, ThreadViewReaders } from './thread-view';

interface GetThreadInput {
  threadId: string;
  userId?: string;
}

/** GET /chat/{thread_id}: the thread with the history of its active branch, oldest message first. */
@Injectable()
export class GetThread {
  constructor(
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentRepository,
    private readonly attachments: FileAttachments,
  ) {}

  async execute(caller: Caller, input: GetThreadInput): Promise<ThreadResponse> {
    const scope = threadScope(caller, input.userId);
    const thread = await this.threads.findVisible(scope, input.threadId);
    if (!thread || !mayUseAgent(caller, thread.agentId)) throw new NotFoundError(THREAD_NOT_FOUND);
    return activeBranchView(scope, thread, this.readers());
  }

  private readers(): ThreadViewReaders {
    return { messages: this.messages, agents: this.agents, attachments: this.attachments };
  }
}
