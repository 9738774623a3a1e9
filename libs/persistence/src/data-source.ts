import { DataSourceOptions } from 'typeorm';
import { Settings } from '@app/config';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

type ConnectionSettings = Pick<Settings, 'databaseUrl'> &
  Partial<Pick<Settings, 'databasePoolSize' | 'databasePreparedStatements' | 'databaseConnectTimeoutMs'>>;

/** DATABASE_CONNECT_TIMEOUT_MS's default, for callers (migrations, tests) that pass only a URL. */
const DEFAULT_CONNECT_TIMEOUT_MS = 3000;

/**
 * The one set of options for the apps and the TypeORM CLI: schema changes only through migrations. The pool
 * size is DATABASE_POOL_SIZE unless a caller that needs only a few connections (migrations, tests) says so.
 */
export function dataSourceOptions(settings: ConnectionSettings, poolSize?: number): DataSourceOptions {
  return {
    type: 'postgres',
    url: settings.databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    // `namedStatements` is ours (pg ignores it): runPreparedAcrossTenants reads it back from the pool's options.
    extra: {
      max: poolSize ?? settings.databasePoolSize ?? 20,
      namedStatements: settings.databasePreparedStatements ?? true,
      // How long a query waits for a pool connection (a new one while PostgreSQL is down, or a free one under
      // load) before failing: an outage answers 503 within this instead of hanging the request.
      connectionTimeoutMillis: settings.databaseConnectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    },
  };
}
