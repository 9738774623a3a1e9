import { Injectable } from '@nestjs/common';
import { Brackets, DataSource, SelectQueryBuilder } from 'typeorm';
import { newId, QueryTemplateEntity } from '../entities';
import { Scope } from './scope';

export type NewQueryTemplate = Omit<
  QueryTemplateEntity,
  'id' | 'orgId' | 'createdAt' | 'updatedAt' | 'updatedBy'
>;
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
    const repository = this.db.getRepository(QueryTemplateEntity);
    return repository.save(
      repository.create({ id: newId(), orgId: scope.orgId, updatedBy: values.createdBy, ...values }),
    );
  }

  findVisible(scope: Scope, id: string): Promise<QueryTemplateEntity | null> {
    return this.visible(scope).andWhere('t.id = :id', { id }).getOne();
  }

  /** Newest first. */
  listVisible(scope: Scope, page: { limit: number; offset: number }): Promise<QueryTemplateEntity[]> {
    return this.visible(scope)
      .orderBy('t.created_at', 'DESC')
      .addOrderBy('t.id', 'DESC')
      .limit(page.limit)
      .offset(page.offset)
      .getMany();
  }

  /** Applies the changes to a visible template; null when there is none. */
  async update(
    scope: Scope,
    id: string,
    changes: QueryTemplateChanges,
    updatedBy: string,
  ): Promise<QueryTemplateEntity | null> {
    return this.db.transaction(async (tx) => {
      const found = await this.visible(scope, tx.getRepository(QueryTemplateEntity).createQueryBuilder('t'))
        .andWhere('t.id = :id', { id })
        .setLock('pessimistic_write')
        .getOne();
      if (!found) return null;
      Object.assign(found, changes, { updatedBy, updatedAt: new Date() });
      return tx.getRepository(QueryTemplateEntity).save(found);
    });
  }

  async delete(scope: Scope, id: string): Promise<boolean> {
    const found = await this.findVisible(scope, id);
    if (!found) return false;
    await this.db.getRepository(QueryTemplateEntity).delete({ id: found.id, orgId: scope.orgId });
    return true;
  }

  private visible(
    scope: Scope,
    query: SelectQueryBuilder<QueryTemplateEntity> = this.db
      .getRepository(QueryTemplateEntity)
      .createQueryBuilder('t'),
  ): SelectQueryBuilder<QueryTemplateEntity> {
    return query.where('t.org_id = :orgId', { orgId: scope.orgId }).andWhere(
      new Brackets((visible) => {
        visible.where(`t.scope = 'organization'`);
        if (scope.userId)
          visible.orWhere(`t.scope = 'private' AND t.created_by = :userId`, { userId: scope.userId });
      }),
    );
  }
}
