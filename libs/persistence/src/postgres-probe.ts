import { Client } from 'pg';

/** PostgreSQL (or the PgBouncer in front of it) took the connection but did not answer within the time-out. */
export class PostgresNoAnswerError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/**
 * One connection and `SELECT 1`, without retries: whether PostgreSQL at `databaseUrl` answers now. The connect and
 * the query each get `timeoutMs`: a PgBouncer that is paused, or waits for a server connection it cannot get,
 * accepts the connection and then holds the query, which would hold the start with it.
 */
export async function probePostgres(databaseUrl: string, timeoutMs: number): Promise<void> {
  const client = new Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  // The failure is the rejected connect or query below; a late socket error must not end the process.
  client.on('error', () => undefined);
  let stepStarted = Date.now();
  try {
    await client.connect();
    stepStarted = Date.now();
    await client.query('SELECT 1');
  } catch (error) {
    if (Date.now() - stepStarted >= timeoutMs) throw new PostgresNoAnswerError(timeoutMs);
    throw error;
  } finally {
    // Not awaited: a server that does not answer may not answer the goodbye either.
    void client.end().catch(() => undefined);
  }
}
