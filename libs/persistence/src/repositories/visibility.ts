import { Brackets, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { Scope } from './scope';

/**
 * Narrows `query` to the rows a caller sees of a table whose rows are organization-wide or private to the end
 * user who made them (`scope`, `created_by`): the caller's organization's organization-wide rows, and with an
 * end user in the scope that user's private ones too.
 */
export function whereVisible<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  scope: Scope,
): SelectQueryBuilder<T> {
  const row = query.alias;
  return query.where(`${row}.org_id = :orgId`, { orgId: scope.orgId }).andWhere(
    new Brackets((visible) => {
      visible.where(`${row}.scope = 'organization'`);
      if (scope.userId)
        visible.orWhere(`${row}.scope = 'private' AND ${row}.created_by = :userId`, { userId: scope.userId });
    }),
  );
}
