import { Injectable } from '@nestjs/common';
import {
  ListThreadsQuery,
  THREAD_LISTING_DEFAULT_LIMIT,
  ThreadSummaryResponse,
  toThreadSummaryResponse,
  isRowId,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { AgentRepository, ThreadRepository } from '@app/persistence';

/** The opaque listing cursor of a thread: its id's 16 bytes in base64url (22 characters). */
export const threadCursor = (threadId: string): string =>
  Buffer.from(threadId.replace(/-/g, ''), 'hex').toString('base64url');

const cursorThreadId = (cursor: string): string =>
  Buffer.from(cursor, 'base64url')
    .toString('hex')
    .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

export interface ThreadPage {
  threads: ThreadSummaryResponse[];
  /** The `before` of the next page; absent when this page is not full, so nothing can follow it. */
  nextCursor?: string;
}

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

  async execute(caller: Caller, query: ListThreadsQuery): Promise<ThreadPage> {
    const requested = query.agent_ids ?? [];
    // An id that is not a UUID names no agent; a filter made only of such ids matches nothing.
    const agentIds = requested.filter(isRowId);
    if (requested.length > 0 && agentIds.length === 0) return { threads: [] };

    const limit = query.limit ?? THREAD_LISTING_DEFAULT_LIMIT;
    const page = await this.threads.listForUser(
      { orgId: caller.orgId, userId: query.user_id },
      { limit, agentIds, beforeId: query.before === undefined ? undefined : cursorThreadId(query.before) },
    );
    const agents = await this.agents.findMany(caller.orgId, [
      ...new Set(page.map(({ thread }) => thread.agentId)),
    ]);
    const agentById = new Map(agents.map((agent) => [agent.id, agent]));
    const threads = page.map(({ thread, live }) =>
      toThreadSummaryResponse(thread, live, agentById.get(thread.agentId)!),
    );
    return page.length === limit
      ? { threads, nextCursor: threadCursor(page[page.length - 1].thread.id) }
      : { threads };
  }
}
