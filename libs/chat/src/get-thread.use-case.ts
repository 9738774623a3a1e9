import { Injectable } from '@nestjs/common';
import { NotFoundError, ThreadResponse, toThreadResponse } from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import { AgentRepository, MessageRepository, ThreadRepository } from '@app/persistence';
import { FileAttachments } from '@app/files';
import { THREAD_NOT_FOUND, threadScope } from './chat.rules';

export interface GetThreadInput {
  threadId: string;
  userId?: string;
}

/** GET /chat/{thread_id}: the thread with its whole history, oldest message first. */
@Injectable()
export class GetThread {
  constructor(
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentRepository,
    private readonly attachments: FileAttachments,
  ) {}

  async execute(caller: Caller, input: GetThreadInput): Promise<ThreadResponse> {
    const thread = await this.threads.findVisible(threadScope(caller, input.userId), input.threadId);
    if (!thread || !mayUseAgent(caller, thread.agentId)) throw new NotFoundError(THREAD_NOT_FOUND);
    const messages = await this.messages.listByThread(thread.id);
    const writers = new Set(
      messages.map((message) => message.agentId).filter((id): id is string => id !== null),
    );
    const agents = await this.agents.findMany(caller.orgId, [...writers]);
    const files = await this.attachments.filesByMessage({ orgId: caller.orgId }, messages);
    return toThreadResponse(thread, messages, agents, files);
  }
}
