import { Injectable } from '@nestjs/common';
import {
  ListThreadsQuery,
  THREAD_LISTING_DEFAULT_LIMIT,
  ThreadSummaryResponse,
  toThreadSummaryResponse,
  isRowId,
  cursorRowId,
  Page,
  pageOf,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { AgentRepository, ThreadRepository } from '@app/persistence';

/**
 * GET /chat: one end user's threads, newest first, archived ones left out, a page after `before` when given. Two
 * queries whatever the page size.
 */
@Injectable()
export class ListThreads {
  constructor(
    private readonly threads: ThreadRepository,
    private readonly agents: AgentRepository,
  ) {}

  async execute(caller: Caller, query: ListThreadsQuery): Promise<Page<ThreadSummaryResponse>> {
    const requested = query.agent_ids ?? [];
    // An id that is not a UUID names no agent; a filter made only of such ids matches nothing.
    const agentIds = requested.filter(isRowId);
    if (requested.length > 0 && agentIds.length === 0) return { items: [] };

    const limit = query.limit ?? THREAD_LISTING_DEFAULT_LIMIT;
    const page = await this.threads.listForUser(
      { orgId: caller.orgId, userId: query.user_id },
      { limit, agentIds, beforeId: query.before === undefined ? undefined : cursorRowId(query.before) },
    );
    const agents = await this.agents.findMany(caller.orgId, [
      ...new Set(page.map(({ thread }) => thread.agentId)),
    ]);
    const agentById = new Map(agents.map((agent) => [agent.id, agent]));
    return pageOf(
      page,
      limit,
      ({ thread }) => thread.id,
      ({ thread, live }) => toThreadSummaryResponse(thread, live, agentById.get(thread.agentId)!),
    );
  }
}
