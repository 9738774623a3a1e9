import { Injectable } from '@nestjs/common';
import { DataSource, EntityTarget, FindOptionsOrder, FindOptionsWhere, IsNull, MoreThan } from 'typeorm';
import {
  AgentEntity,
  ConnectionEntity,
  ConversationFileEntity,
  MemoryFileEntity,
  MessageEntity,
  RoutineEntity,
  ThreadEntity,
} from '../entities';
import { END_USER_MEMORY_FILES_SQL } from './memory-file.repository';
import { withTenant } from './tenant-scope';

/** A row an end user owns (`user_id`), with an id to page on. */
type EndUserRow = { id: string; orgId: string; userId: string | null };

/**
 * An end user's rows for their export (CONTRACTS §20), page by page: keyset on the primary order, never all at
 * once. It finds what an erasure would remove (ErasureRepository), by the same columns, under the tenant wall.
 */
@Injectable()
export class UserExportRepository {
  constructor(private readonly db: DataSource) {}

  exportThreads(
    orgId: string,
    userId: string,
    afterId: string | null,
    limit: number,
  ): Promise<ThreadEntity[]> {
    return this.endUserPage(ThreadEntity, orgId, userId, afterId, limit);
  }

  exportMessages(
    orgId: string,
    threadId: string,
    afterPosition: number,
    limit: number,
  ): Promise<MessageEntity[]> {
    return withTenant(this.db, { orgId }, (tx) =>
      tx.getRepository(MessageEntity).find({
        where: { orgId, threadId, position: MoreThan(afterPosition) },
        order: { position: 'ASC' },
        take: limit,
      }),
    );
  }

  exportFiles(
    orgId: string,
    userId: string,
    afterId: string | null,
    limit: number,
  ): Promise<ConversationFileEntity[]> {
    return this.endUserPage(ConversationFileEntity, orgId, userId, afterId, limit);
  }

  /** The end user's memory files (as deleteMemoryFiles finds them), a page after `afterId`. */
  exportMemoryFiles(
    orgId: string,
    userId: string,
    afterId: string | null,
    limit: number,
  ): Promise<MemoryFileEntity[]> {
    return withTenant(this.db, { orgId }, (tx) =>
      tx.getRepository(MemoryFileEntity).query(
        `SELECT f.id, f.org_id AS "orgId", f.namespace, f.path, f.purpose, f.content, f.created_at AS "createdAt",
         f.updated_at AS "updatedAt", f.version
       FROM memory_files f
       WHERE ${END_USER_MEMORY_FILES_SQL} AND ($3::uuid IS NULL OR f.id > $3)
       ORDER BY f.id LIMIT $4`,
        [orgId, userId, afterId, limit],
      ),
    );
  }

  exportRoutines(orgId: string, userId: string): Promise<RoutineEntity[]> {
    return withTenant(this.db, { orgId }, (tx) =>
      tx.getRepository(RoutineEntity).find({ where: { orgId, userId }, order: { id: 'ASC' } }),
    );
  }

  exportConnections(orgId: string, userId: string): Promise<ConnectionEntity[]> {
    return withTenant(this.db, { orgId }, (tx) =>
      tx
        .getRepository(ConnectionEntity)
        .find({ where: { orgId, createdBy: userId, deletedAt: IsNull() }, order: { id: 'ASC' } }),
    );
  }

  /** The organization's agents, archived ones included (a message names its writer). */
  agentsOf(orgId: string): Promise<AgentEntity[]> {
    return withTenant(this.db, { orgId }, (tx) => tx.getRepository(AgentEntity).find({ where: { orgId } }));
  }

  /** A page of the end user's rows of an entity owned by `user_id`, in id order after `afterId`. */
  private endUserPage<T extends EndUserRow>(
    target: EntityTarget<T>,
    orgId: string,
    userId: string,
    afterId: string | null,
    limit: number,
  ): Promise<T[]> {
    const where = { orgId, userId, ...(afterId && { id: MoreThan(afterId) }) } as FindOptionsWhere<T>;
    const order = { id: 'ASC' } as FindOptionsOrder<T>;
    return withTenant(this.db, { orgId }, (tx) =>
      tx.getRepository(target).find({ where, order, take: limit }),
    );
  }
}
