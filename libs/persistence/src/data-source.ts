import { DataSourceOptions } from 'typeorm';
import { Settings } from '@app/config';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** The one set of options for the apps and the TypeORM CLI: schema changes only through migrations. */
export function dataSourceOptions(settings: Pick<Settings, 'databaseUrl'>, poolSize = 20): DataSourceOptions {
  return {
    type: 'postgres',
    url: settings.databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    extra: { max: poolSize },
  };
}
