import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadSettingsOrExit } from '@app/config';
import { dataSourceOptions, ensureDatabase, runMigrations } from '@app/persistence';

/** `npm run migrate`: creates the database when missing and applies pending migrations, once per deployment. */
async function migrate(): Promise<void> {
  const settings = loadSettingsOrExit();
  await ensureDatabase(settings.databaseUrl);
  const dataSource = await new DataSource(dataSourceOptions(settings, 2)).initialize();
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
