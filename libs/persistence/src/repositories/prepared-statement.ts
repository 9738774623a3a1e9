import type { Pool, QueryConfig } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Scope } from './scope';
import { TenantScopedQuery } from './tenant-statement';

/** A statement PostgreSQL parses and plans once per connection, then runs by name. */
export interface PreparedStatement {
  name: string;
  text: string;
}

/** Every statement declared in this process, by name: what the checked-in snapshot of statements is made of. */
const declared = new Map<string, string>();

/**
 * Declares a prepared statement. Its name must stay unique to its text, since a connection keeps the first text
 * it prepared under a name: a second text under a taken name throws here instead of running the wrong query.
 */
export function preparedStatement(statement: PreparedStatement): PreparedStatement {
  const known = declared.get(statement.name);
  if (known !== undefined && known !== statement.text) {
    throw new Error(`prepared statement ${statement.name} is declared twice with different texts`);
  }
  declared.set(statement.name, statement.text);
  return statement;
}

/** The statements declared so far, by name (those of a repository once it is loaded, or built when it is). */
export function declaredStatements(): ReadonlyMap<string, string> {
  return declared;
}

/**
 * Runs a prepared statement on TypeORM's own connection pool, across organizations: for the agent runtime's
 * per-step statements, which act for whichever organization's run a worker holds. A checkpoint's planning cost
 * more than its commit (0.67 ms planned each time, 0.41 ms prepared, on this box), and TypeORM's query runner
 * added as much again. Stand-alone statements only: it never joins an open transaction.
 */
export async function runPreparedAcrossTenants<Row>(
  db: DataSource,
  statement: PreparedStatement,
  values: unknown[],
): Promise<Row[]> {
  const pool = poolOf(db);
  return (await pool.query(queryConfig(pool, statement, values))).rows as Row[];
}

/**
 * Runs a prepared statement for one organization under row-level security (CONTRACTS §21's second wall), in the
 * one round trip it takes alone: whatever the statement's own conditions say, it sees and changes only the rows
 * of `scope`'s organization. For the hot statements of a conversation, where a transaction of its own would
 * cost three more round trips.
 */
export async function runPreparedAsTenant<Row>(
  db: DataSource,
  scope: Pick<Scope, 'orgId'>,
  statement: PreparedStatement,
  values: unknown[],
): Promise<Row[]> {
  const pool = poolOf(db);
  const query = new TenantScopedQuery(
    queryConfig(pool, statement, values),
    scope.orgId,
    pool.options.namedStatements !== false,
  );
  const result = (await pool.query(query as never)) as unknown as { rows: Row[] };
  return result.rows;
}

type StatementPool = Pool & { options: { namedStatements?: boolean } };

function poolOf(db: DataSource): StatementPool {
  return (db.driver as PostgresDriver).master as StatementPool;
}

/**
 * The statement by name, or with DATABASE_PREPARED_STATEMENTS=false (behind a transaction-pooling PgBouncer
 * < 1.21) the same text as an unnamed statement, planned each time, which any pooler passes through.
 */
function queryConfig(pool: StatementPool, statement: PreparedStatement, values: unknown[]): QueryConfig {
  return pool.options.namedStatements === false ? { text: statement.text, values } : { ...statement, values };
}
