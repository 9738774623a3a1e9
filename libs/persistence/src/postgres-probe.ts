import { Client } from 'pg';

/** One connection and `SELECT 1`, without retries: whether PostgreSQL at `databaseUrl` answers now. */
export async function probePostgres(databaseUrl: string, timeoutMs = 3000): Promise<void> {
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: timeoutMs });
  // The failure is the rejected connect below; a late socket error must not end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}
