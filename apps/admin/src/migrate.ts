import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadSettingsOrExit } from '@app/config';
import { dataSourceOptions, ensureDatabase, runMigrations } from '@app/persistence';

/**
 * `npm run migrate`: creates the database when missing and applies pending migrations, once per deployment.
 * It goes to DATABASE_MIGRATION_URL when set: PostgreSQL itself, not a transaction-pooling PgBouncer.
 */
async function migrate(): Promise<void> {
  const settings = loadSettingsOrExit();
  const databaseUrl = settings.databaseMigrationUrl ?? settings.databaseUrl;
  await ensureDatabase(databaseUrl);
  const dataSource = await new DataSource(dataSourceOptions({ databaseUrl }, 2)).initialize();
  try {
    const applied = await runMigrations(dataSource);
    process.stdout.write(`${JSON.stringify({ applied })}\n`);
  } finally {
    await dataSource.destroy();
  }
}

migrate().catch((error: Error) => {
  process.stderr.write(`migration failed: ${error.message}\n`);
  process.exit(1);
});
