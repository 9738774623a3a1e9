import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { ConnectionEntity, newId } from '../entities';
import { entityFromJson } from './entity-rows';
import { preparedStatement, runPreparedAsTenant } from './prepared-statement';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';

/** A connection ($1) of organization $2, deleted ones included: read before each call to its store. */
const CONNECTION_BY_ID = preparedStatement({
  name: 'connection_by_id',
  text: `SELECT to_jsonb(c) AS connection FROM connections c WHERE c.id = $1 AND c.org_id = $2`,
});

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

  /**
   * A connection of the scope's organization by id, deleted ones included (an archived source still names its
   * connection), whoever made it: in one round trip.
   */
  async findById(scope: Pick<Scope, 'orgId'>, id: string): Promise<ConnectionEntity | null> {
    const [row] = await runPreparedAsTenant<{ connection: Record<string, unknown> }>(
      this.db,
      scope,
      CONNECTION_BY_ID,
      [id, scope.orgId],
    );
    return row ? entityFromJson(this.db, ConnectionEntity, row.connection) : null;
  }

  /** The connections of the scope's organization among `ids`, as findById finds each. */
  findByIds(scope: Pick<Scope, 'orgId'>, ids: string[]): Promise<ConnectionEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return withTenant(this.db, scope, (tx) =>
      tx
        .getRepository(ConnectionEntity)
        .createQueryBuilder('c')
        .where('c.id IN (:...ids)', { ids })
        .andWhere('c.org_id = :orgId', { orgId: scope.orgId })
        .getMany(),
    );
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
  lockForUpdate(tx: Db, scope: Pick<Scope, 'orgId'>, id: string): Promise<ConnectionEntity | null> {
    return withTenant(tx, scope, (scoped) =>
      scoped
        .getRepository(ConnectionEntity)
        .createQueryBuilder('c')
        .where('c.id = :id', { id })
        .andWhere('c.org_id = :orgId', { orgId: scope.orgId })
        .setLock('pessimistic_write')
        .getOne(),
    );
  }

  /** A connection of the scope's organization, as changed (the policy refuses one of another). */
  async save(
    scope: Pick<Scope, 'orgId'>,
    connection: ConnectionEntity,
    db: Db = this.db.manager,
  ): Promise<ConnectionEntity> {
    return withTenant(db, scope, (tx) => tx.getRepository(ConnectionEntity).save(connection));
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
