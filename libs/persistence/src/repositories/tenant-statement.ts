import { Query, type QueryConfig } from 'pg';

/**
 * What a tenant transaction opens with (withTenant): the role the policies hold and the organization they see,
 * both local to the transaction.
 */
export const ENTER_TENANT_SQL = `SELECT set_config('role', 'parley_tenant', true), set_config('parley.org_id', $1, true)`;

/** The name ENTER_TENANT_SQL is prepared under on a connection that keeps prepared statements. */
const ENTER_TENANT_STATEMENT = 'parley_enter_tenant';

/** The parts of node-postgres's wire connection a query writes to (pg's Connection, untyped by @types/pg). */
interface WireConnection {
  parse(message: { text: string; name: string; types: unknown[] }): void;
  bind(message: { portal: string; statement: string; values: unknown[] }): void;
  execute(message: { portal: string; rows: number }): void;
  parsedStatements: Record<string, string>;
}

/** node-postgres's Query with the protocol steps it runs, which this class extends (pg/lib/query.js). */
interface QueryProtocolSteps {
  name?: string;
  prepare(connection: WireConnection): void;
  hasBeenParsed(connection: WireConnection): boolean;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: WireConnection): void;
  handleError(error: Error, connection: WireConnection): void;
}

const QueryWithSteps = Query as unknown as new (config: QueryConfig) => QueryProtocolSteps;

/**
 * One statement under row-level security in a single round trip: the tenant's `set_config` and the statement go
 * out as two Parse/Bind/Execute groups under one Sync. PostgreSQL runs everything before a Sync in one implicit
 * transaction, so the settings hold for the statement and end with it, as they do in a transaction opened by
 * withTenant, and a pooler in transaction mode keeps the pair on one server connection; without the BEGIN,
 * `set_config` and COMMIT round trips the wall costs the hot statements next to nothing (bench/row-level-security.ts).
 */
export class TenantScopedQuery extends QueryWithSteps {
  /** The tenant's `set_config` row and completion come first: they are this query's, not the caller's result. */
  private enteringTenant = true;
  /** Whether the statement's own Parse was already known on this connection before this query sent one. */
  private statementWasParsed = true;

  constructor(
    config: QueryConfig,
    private readonly orgId: string,
    /**
     * Whether the connection keeps prepared statements (DATABASE_PREPARED_STATEMENTS): then the tenant statement
     * is parsed and planned once per connection, which is most of its cost, instead of each time.
     */
    private readonly prepared: boolean,
  ) {
    super(config);
  }

  override prepare(connection: WireConnection): void {
    this.statementWasParsed = this.hasBeenParsed(connection);
    const name = this.prepared ? ENTER_TENANT_STATEMENT : '';
    if (!name || connection.parsedStatements[name] === undefined) {
      connection.parse({ text: ENTER_TENANT_SQL, name, types: [] });
      // Its Parse cannot fail (fixed text, built-in function); recorded now, as node-postgres records a query's own.
      if (name) connection.parsedStatements[name] = ENTER_TENANT_SQL;
    }
    connection.bind({ portal: '', statement: name, values: [this.orgId] });
    connection.execute({ portal: '', rows: 0 });
    super.prepare(connection);
  }

  override handleDataRow(message: unknown): void {
    if (!this.enteringTenant) super.handleDataRow(message);
  }

  override handleCommandComplete(message: unknown, connection: WireConnection): void {
    if (this.enteringTenant) this.enteringTenant = false;
    else super.handleCommandComplete(message, connection);
  }

  /**
   * node-postgres records a named statement as parsed at the first ParseComplete of a query, which here is the
   * tenant statement's: if the statement's own Parse then failed, forget it, or every later use on this
   * connection would bind a statement that does not exist.
   */
  override handleError(error: Error, connection: WireConnection): void {
    if (!this.statementWasParsed && this.name) delete connection.parsedStatements[this.name];
    super.handleError(error, connection);
  }
}
