import { DataSource, EntityManager } from 'typeorm';
import { Db, Scope } from './scope';
import { ENTER_TENANT_SQL } from './tenant-statement';

/**
 * The transactions that row-level security holds to one organization (the baseline migration's policies),
 * with the organization each was opened for. A transaction's manager is made for that transaction alone, so it
 * is a key that dies with it.
 */
const tenantTransactions = new WeakMap<EntityManager, string>();

/**
 * Names the organization of a transaction for row-level security: the role `parley_tenant` and the setting
 * `parley.org_id`, both local to the transaction, so a pooled connection (PgBouncer in transaction mode
 * included) carries nothing of it into the next one.
 */
async function enterTenant(tx: EntityManager, orgId: string): Promise<void> {
  await tx.query(ENTER_TENANT_SQL, [orgId]);
  tenantTransactions.set(tx, orgId);
}

/**
 * Runs `work` in a transaction that sees and changes only the rows of `scope`'s organization, whatever its
 * statements say: the second wall behind each repository's own `org_id = $1` (CONTRACTS §21).
 * - Given a tenant transaction already (a use case's, or a test's), `work` joins it as it is: the organization
 *   that transaction was opened for is the one whose rows it sees, so a statement written with another
 *   organization's ids finds nothing.
 * - Given another open transaction, that transaction becomes the scope's tenant transaction from here on.
 * - Given none, `work` gets a transaction of its own.
 */
export async function withTenant<T>(
  source: DataSource | Db,
  scope: Pick<Scope, 'orgId'>,
  work: (tx: EntityManager) => Promise<T>,
): Promise<T> {
  const manager = source instanceof DataSource ? source.manager : source;
  if (tenantTransactions.has(manager)) return work(manager);
  if (manager.queryRunner?.isTransactionActive) {
    await enterTenant(manager, scope.orgId);
    return work(manager);
  }
  return manager.transaction(async (tx) => {
    await enterTenant(tx, scope.orgId);
    return work(tx);
  });
}
