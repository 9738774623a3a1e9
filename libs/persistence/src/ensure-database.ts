import { Client } from 'pg';

/** Creates the database named in the URL when it does not exist (used by `npm start` and tests). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) return;
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client
        .query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`)
        .catch((error: { code?: string }) => {
          if (error.code !== '42P04') throw error; // created meanwhile by another process
        });
    }
  } finally {
    await client.end();
  }
}

/** Applies pending migrations; safe to call from several processes (TypeORM takes an advisory lock). */
export async function runMigrations(dataSource: import('typeorm').DataSource): Promise<string[]> {
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  return applied.map((migration) => migration.name);
}
