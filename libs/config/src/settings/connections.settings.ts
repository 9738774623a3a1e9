import { Matches } from 'class-validator';
import { OnOff, Optional, WholeNumber } from '../setting-kinds';

/** PostgreSQL and Redis: where the system of record and the queues are. */
export class ConnectionSettings {
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  databaseUrl = 'postgres://postgres@127.0.0.1:5432/agents';

  /**
   * Where `npm run migrate` connects; default DATABASE_URL. Set it to PostgreSQL itself when DATABASE_URL goes
   * through a transaction-pooling PgBouncer: a migration holds one session from start to end.
   */
  @Optional(Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' }))
  databaseMigrationUrl?: string;

  /**
   * PostgreSQL connections one process keeps at most. Every gateway and worker has its own pool, so keep
   * processes × DATABASE_POOL_SIZE ≤ max_connections − reserved (superuser and admin connections).
   */
  @WholeNumber({ min: 1, max: 1000 })
  databasePoolSize = 20;

  /**
   * How long a new PostgreSQL connection may take to answer (connect and first query at start, connect in the
   * pool) before it counts as failed: a starting process then waits and retries, a request answers 503. Raise it
   * when PgBouncer or PostgreSQL is slow to accept connections, e.g. under a burst of replicas starting.
   */
  @WholeNumber({ min: 100, max: 600000 })
  databaseConnectTimeoutMs = 3000;

  /**
   * Named (server-side) prepared statements for the hot per-step queries. Turn off behind a PgBouncer in
   * transaction mode older than 1.21 (Debian 12 ships 1.18): there a statement prepared on one server
   * connection is unknown on the next.
   */
  @OnOff()
  databasePreparedStatements = true;

  /** `redis://`, `rediss://`, or `redis-cluster://[user:password@]host:port,host:port` for a Redis Cluster. */
  @Matches(/^(rediss?:\/\/|redis-cluster:\/\/[^,]+(,[^,]+)*$)/, {
    message: 'must be a redis://, rediss:// or redis-cluster://host:port,host:port URL',
  })
  redisUrl = 'redis://127.0.0.1:6379';

  @Matches(/^[A-Za-z0-9:_-]{1,64}$/, { message: 'must be 1-64 letters, digits, ":", "_" or "-"' })
  redisPrefix = 'agents';
}
