import { Injectable } from '@nestjs/common';
import {
  NotFoundError,
  ThreadSummaryResponse,
  toThreadSummaryResponse,
  UpdateThreadDto,
} from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import { AgentRepository, ThreadRepository } from '@app/persistence';
import { THREAD_NOT_FOUND, threadScope } from './chat.rules';

interface UpdateThreadInput {
  threadId: string;
  userId?: string;
  body: UpdateThreadDto;
}

/** PUT /chat/{thread_id}: renames or stars the thread; answers its summary. */
@Injectable()
export class UpdateThread {
  constructor(
    private readonly threads: ThreadRepository,
    private readonly agents: AgentRepository,
  ) {}

  async execute(caller: Caller, input: UpdateThreadInput): Promise<ThreadSummaryResponse> {
    const scope = threadScope(caller, input.userId, input.body.options?.user_id);
    const thread = await this.threads.findVisible(scope, input.threadId);
    if (!thread || !mayUseAgent(caller, thread.agentId)) throw new NotFoundError(THREAD_NOT_FOUND);

    const changes = {
      ...(input.body.name != null ? { name: input.body.name } : {}),
      ...(input.body.starred != null ? { starred: input.body.starred } : {}),
    };
    if (Object.keys(changes).length > 0) await this.threads.update(scope, thread.id, changes);

    const [live, agents] = await Promise.all([
      this.threads.isLive(scope, thread.id),
      this.agents.findMany(caller.orgId, [thread.agentId]),
    ]);
    return toThreadSummaryResponse({ ...thread, ...changes }, live, agents[0]);
  }
}
