import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Db, EndUserScope } from './scope';

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
    await db.query(
      `INSERT INTO end_user_memory_namespaces (org_id, user_id, namespace)
       SELECT $1, $2, unnest($3::text[])
       ON CONFLICT DO NOTHING`,
      [scope.orgId, scope.userId, namespaces],
    );
  }

  /** Every namespace the end user was ever granted, by name. */
  async listGranted(scope: EndUserScope, db: Db = this.db.manager): Promise<string[]> {
    const rows: { namespace: string }[] = await db.query(
      `SELECT namespace FROM end_user_memory_namespaces WHERE org_id = $1 AND user_id = $2 ORDER BY namespace`,
      [scope.orgId, scope.userId],
    );
    return rows.map((row) => row.namespace);
  }

  /** Forgets the end user's grants (erasure: no row keeps their id afterwards); how many rows. */
  async forget(scope: EndUserScope, db: Db = this.db.manager): Promise<number> {
    const [, affected]: [unknown[], number] = await db.query(
      `DELETE FROM end_user_memory_namespaces WHERE org_id = $1 AND user_id = $2`,
      [scope.orgId, scope.userId],
    );
    return affected;
  }
}
