import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { newId, ThreadEntity, ThreadInception } from '../entities';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';

export interface NewThread {
  agentId: string;
  name: string;
  projectId: string | null;
  memoryNamespace: string | null;
  /** Given by a routine's firing: an id derived from the firing, so firing twice cannot store two threads. */
  id?: string;
  inception?: ThreadInception;
}

interface ThreadListing {
  limit: number;
  /** Only threads of these agents; every agent when empty or absent. */
  agentIds?: string[];
  /** Only threads listed after this one (same owner), in the listing's order. */
  beforeId?: string;
}

/** A thread of the listing with whether any of its messages is live. */
interface ListedThread {
  thread: ThreadEntity;
  live: boolean;
}

/** Thread.live: whether any message of the thread is pending or running (partial index messages_live_idx). */
const LIVE_SQL = 'EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = t.id AND m.live)';

/**
 * Threads. Reads that serve a caller take a Scope and see only visible threads: of the organization, of the
 * end user when one is named, not archived. "Missing" and "not yours" are the same null (404).
 */
@Injectable()
export class ThreadRepository {
  constructor(private readonly db: DataSource) {}

  /** A new thread's row, not yet stored: MessageRepository.startThread stores it with its first exchange. */
  build(scope: Scope, values: NewThread): ThreadEntity {
    const now = new Date();
    return this.db.getRepository(ThreadEntity).create({
      id: newId(),
      orgId: scope.orgId,
      userId: scope.userId ?? null,
      starred: false,
      inception: 'conversational',
      archivedAt: null,
      compactionRequestedAt: null,
      activeLeafId: null,
      createdAt: now,
      updatedAt: now,
      ...values,
    });
  }

  /** The thread if the scope may see it, else null. */
  findVisible(scope: Scope, id: string, db: Db = this.db.manager): Promise<ThreadEntity | null> {
    return withTenant(db, scope, (tx) => tx.getRepository(ThreadEntity).findOneBy(visible(scope, id)));
  }

  /**
   * Like findVisible, and locks the row (SELECT … FOR UPDATE) until the transaction ends: adding messages,
   * archiving and the worker's run ordering serialise on it, so positions never clash.
   */
  lockVisible(tx: Db, scope: Scope, id: string): Promise<ThreadEntity | null> {
    return withTenant(tx, scope, (scoped) =>
      scoped
        .getRepository(ThreadEntity)
        .findOne({ where: visible(scope, id), lock: { mode: 'pessimistic_write' } }),
    );
  }

  /**
   * One end user's visible threads, newest first, with their live flags, in one query on threads_listing_idx
   * (the live flag is an index probe per row of the page).
   */
  async listForUser(
    scope: Scope & { userId: string },
    listing: ThreadListing,
    db: Db = this.db.manager,
  ): Promise<ListedThread[]> {
    return withTenant(db, scope, (tx) => this.listPage(tx, scope, listing));
  }

  private async listPage(
    tx: Db,
    scope: Scope & { userId: string },
    listing: ThreadListing,
  ): Promise<ListedThread[]> {
    const query = tx
      .getRepository(ThreadEntity)
      .createQueryBuilder('t')
      .addSelect(LIVE_SQL, 'live')
      .where('t.org_id = :orgId', { orgId: scope.orgId })
      .andWhere('t.user_id = :userId', { userId: scope.userId })
      .andWhere('t.archived_at IS NULL')
      // An evaluation's threads are the run's, never an end user's conversations (CONTRACTS §23).
      .andWhere("t.inception <> 'eval'")
      .orderBy('t.created_at', 'DESC')
      .addOrderBy('t.id', 'DESC')
      .limit(listing.limit);
    if (listing.agentIds && listing.agentIds.length > 0) {
      query.andWhere('t.agent_id IN (:...agentIds)', { agentIds: listing.agentIds });
    }
    if (listing.beforeId) {
      // Keyset on the listing's own order, read from the row itself: exact to the microsecond, and a cursor of
      // another owner's thread compares with NULL and lists nothing.
      query.andWhere(
        '(t.created_at, t.id) < (SELECT c.created_at, c.id FROM threads c WHERE c.id = :beforeId AND c.org_id = :orgId AND c.user_id = :userId)',
        { beforeId: listing.beforeId },
      );
    }
    const { entities, raw } = await query.getRawAndEntities<{ live: boolean }>();
    return entities.map((thread, index) => ({ thread, live: raw[index].live }));
  }

  /** Thread.live of one thread. */
  async isLive(scope: Scope, threadId: string, db: Db = this.db.manager): Promise<boolean> {
    const rows: { live: boolean }[] = await withTenant(db, scope, (tx) =>
      tx.query(
        'SELECT EXISTS (SELECT 1 FROM messages WHERE thread_id = $1 AND org_id = $2 AND live) AS live',
        [threadId, scope.orgId],
      ),
    );
    return rows[0].live;
  }

  /** Renames or stars a thread; fields left undefined keep their value. */
  async update(
    scope: Scope,
    id: string,
    changes: { name?: string; starred?: boolean },
    db: Db = this.db.manager,
  ): Promise<void> {
    await withTenant(db, scope, (tx) =>
      tx
        .getRepository(ThreadEntity)
        .update({ id, orgId: scope.orgId }, { ...changes, updatedAt: new Date() }),
    );
  }

  /** Archives the thread: from now on every scoped read misses it. */
  async archive(tx: Db, scope: Pick<Scope, 'orgId'>, id: string): Promise<void> {
    const now = new Date();
    await withTenant(tx, scope, (scoped) =>
      scoped
        .getRepository(ThreadEntity)
        .update({ id, orgId: scope.orgId, archivedAt: IsNull() }, { archivedAt: now, updatedAt: now }),
    );
  }
}

function visible(scope: Scope, id: string) {
  return {
    id,
    orgId: scope.orgId,
    archivedAt: IsNull(),
    ...(scope.userId != null ? { userId: scope.userId } : {}),
  };
}
