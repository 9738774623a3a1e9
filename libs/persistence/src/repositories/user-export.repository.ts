import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, MoreThan } from 'typeorm';
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
    return withTenant(this.db, { orgId }, (tx) =>
      tx.getRepository(ThreadEntity).find({
        where: { orgId, userId, ...(afterId && { id: MoreThan(afterId) }) },
        order: { id: 'ASC' },
        take: limit,
      }),
    );
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
    return withTenant(this.db, { orgId }, (tx) =>
      tx.getRepository(ConversationFileEntity).find({
        where: { orgId, userId, ...(afterId && { id: MoreThan(afterId) }) },
        order: { id: 'ASC' },
        take: limit,
      }),
    );
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
}
