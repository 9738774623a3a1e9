import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { ConnectionEntity, newId } from '../entities';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';

type NewConnection = Pick<
  ConnectionEntity,
  'name' | 'kind' | 'createdBy' | 'credentialsEncrypted' | 'expiresAt'
>;

/**
 * Connections of an organization, each the end user's who made it (`created_by`): with a `userId` in the scope
 * another user's connection is the same as a missing one. Deleted ones are gone for the API.
 */
@Injectable()
export class ConnectionRepository {
  constructor(private readonly db: DataSource) {}

  async create(scope: Scope, values: NewConnection): Promise<ConnectionEntity> {
    return withTenant(this.db, scope, (tx) => {
      const repository = tx.getRepository(ConnectionEntity);
      return repository.save(
        repository.create({
          id: newId(),
          orgId: scope.orgId,
          status: 'active',
          statusReason: null,
          inoperative: false,
          checkedAt: null,
          deletedAt: null,
          ...values,
        }),
      );
    });
  }

  findVisible(scope: Scope, id: string, db: Db = this.db.manager): Promise<ConnectionEntity | null> {
    return withTenant(db, scope, (tx) =>
      tx.getRepository(ConnectionEntity).findOneBy({ id, ...visibleTo(scope) }),
    );
  }

  /** Any connection by id, deleted ones included (an archived source still names its connection). */
  findById(id: string, db: Db = this.db.manager): Promise<ConnectionEntity | null> {
    return db.getRepository(ConnectionEntity).findOneBy({ id });
  }

  findByIds(ids: string[]): Promise<ConnectionEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .getRepository(ConnectionEntity)
      .createQueryBuilder('c')
      .where('c.id IN (:...ids)', { ids })
      .getMany();
  }

  /** Newest first. */
  listVisible(scope: Scope): Promise<ConnectionEntity[]> {
    return withTenant(this.db, scope, (tx) =>
      tx
        .getRepository(ConnectionEntity)
        .find({ where: visibleTo(scope), order: { createdAt: 'DESC', id: 'DESC' } }),
    );
  }

  /** The row locked for the transaction: one process at a time refreshes a connection's token. */
  lockForUpdate(db: Db, id: string): Promise<ConnectionEntity | null> {
    return db
      .getRepository(ConnectionEntity)
      .createQueryBuilder('c')
      .where('c.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  async save(connection: ConnectionEntity, db: Db = this.db.manager): Promise<ConnectionEntity> {
    return db.getRepository(ConnectionEntity).save(connection);
  }

  /** Soft delete of a connection visible to the scope, refused (`in_use`) while a source that is not archived uses it. */
  async deleteUnused(scope: Scope, id: string): Promise<'deleted' | 'in_use' | 'missing'> {
    return withTenant(this.db, scope, async (tx) => {
      const found = await tx
        .getRepository(ConnectionEntity)
        .createQueryBuilder('c')
        .where({ id, ...visibleTo(scope) })
        .setLock('pessimistic_write')
        .getOne();
      if (!found) return 'missing';
      const [{ count }] = (await tx.query(
        `SELECT count(*)::int AS count FROM sources WHERE connection_id = $1 AND archived_at IS NULL`,
        [id],
      )) as { count: number }[];
      if (count > 0) return 'in_use';
      await tx.getRepository(ConnectionEntity).update({ id }, { deletedAt: new Date() });
      return 'deleted';
    });
  }
}

/** The live connections of the scope's organization, only the end user's own when the scope names one. */
function visibleTo(scope: Scope) {
  return { orgId: scope.orgId, deletedAt: IsNull(), ...(scope.userId ? { createdBy: scope.userId } : {}) };
}
