import { Injectable } from '@nestjs/common';
import { DataSource, SelectQueryBuilder } from 'typeorm';
import { newId, QueryTemplateEntity } from '../entities';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';
import { whereVisible } from './visibility';

type NewQueryTemplate = Omit<QueryTemplateEntity, 'id' | 'orgId' | 'createdAt' | 'updatedAt' | 'updatedBy'>;
export type QueryTemplateChanges = Partial<
  Pick<
    QueryTemplateEntity,
    'name' | 'description' | 'content' | 'metadata' | 'iconUri' | 'iconColor' | 'backgroundColor' | 'scope'
  >
>;

/**
 * Query templates. A template is visible to a caller when it is of the caller's organization and either
 * organization-wide or private to the caller's end user; "missing" and "not visible" are the same null.
 */
@Injectable()
export class QueryTemplateRepository {
  constructor(private readonly db: DataSource) {}

  async create(scope: Scope, values: NewQueryTemplate): Promise<QueryTemplateEntity> {
    return withTenant(this.db, scope, (tx) => {
      const repository = tx.getRepository(QueryTemplateEntity);
      return repository.save(
        repository.create({ id: newId(), orgId: scope.orgId, updatedBy: values.createdBy, ...values }),
      );
    });
  }

  findVisible(scope: Scope, id: string, db: Db = this.db.manager): Promise<QueryTemplateEntity | null> {
    return withTenant(db, scope, (tx) => this.visible(scope, tx).andWhere('t.id = :id', { id }).getOne());
  }

  /** Newest first. */
  listVisible(scope: Scope, page: { limit: number; offset: number }): Promise<QueryTemplateEntity[]> {
    return withTenant(this.db, scope, (tx) =>
      this.visible(scope, tx)
        .orderBy('t.created_at', 'DESC')
        .addOrderBy('t.id', 'DESC')
        .limit(page.limit)
        .offset(page.offset)
        .getMany(),
    );
  }

  /** Applies the changes to a visible template; null when there is none. */
  async update(
    scope: Scope,
    id: string,
    changes: QueryTemplateChanges,
    updatedBy: string,
  ): Promise<QueryTemplateEntity | null> {
    return withTenant(this.db, scope, async (tx) => {
      const found = await this.visible(scope, tx)
        .andWhere('t.id = :id', { id })
        .setLock('pessimistic_write')
        .getOne();
      if (!found) return null;
      Object.assign(found, changes, { updatedBy, updatedAt: new Date() });
      return tx.getRepository(QueryTemplateEntity).save(found);
    });
  }

  async delete(scope: Scope, id: string): Promise<boolean> {
    return withTenant(this.db, scope, async (tx) => {
      const found = await this.findVisible(scope, id, tx);
      if (!found) return false;
      await tx.getRepository(QueryTemplateEntity).delete({ id: found.id, orgId: scope.orgId });
      return true;
    });
  }

  private visible(scope: Scope, tx: Db): SelectQueryBuilder<QueryTemplateEntity> {
    return whereVisible(tx.getRepository(QueryTemplateEntity).createQueryBuilder('t'), scope);
  }
}
