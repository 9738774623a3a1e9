import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Db, EndUserScope } from './scope';
import { withTenant } from './tenant-scope';

/**
 * The memory namespaces an end user's tokens were granted (CONTRACTS §21), recorded at minting: tokens are
 * stateless, so this is where erasure and export learn which namespaces belong to the person.
 */
@Injectable()
export class EndUserMemoryNamespaceRepository {
  constructor(private readonly db: DataSource) {}

  /** Records that the end user was granted these namespaces; one granted before stays one row. */
  async grant(scope: EndUserScope, namespaces: readonly string[], db: Db = this.db.manager): Promise<void> {
    if (namespaces.length === 0) return;
    await withTenant(db, scope, (tx) =>
      tx.query(
        `INSERT INTO end_user_memory_namespaces (org_id, user_id, namespace)
       SELECT $1, $2, unnest($3::text[])
       ON CONFLICT DO NOTHING`,
        [scope.orgId, scope.userId, namespaces],
      ),
    );
  }
}
