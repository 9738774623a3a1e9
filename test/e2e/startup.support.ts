import { ChildProcess, spawn } from 'node:child_process';
import { AppProcess } from '../support/processes';

/** A database that does not exist, behind a password no log line may show. */
export const MISSING_DATABASE_URL = 'postgres://postgres:hunter2@127.0.0.1:5432/parley_no_such_database';

/**
 * An app started with MISSING_DATABASE_URL: it says at once which setting names the database it cannot reach
 * (the password masked), answers liveness and, on readiness, why it is not ready; stopped, its output never
 * shows the password.
 */
export async function expectWaitingForMissingDatabase(app: AppProcess): Promise<void> {
  try {
    await app.waitForOutput(
      'cannot reach PostgreSQL at DATABASE_URL postgres://postgres:***@127.0.0.1:5432/parley_no_such_database: ' +
        'database \\"parley_no_such_database\\" does not exist; retrying in 1 s',
      15000,
    );
    // Alive while it waits, and saying why it is not ready.
    expect((await fetch(`${app.url}/health/live`)).status).toBe(200);
    const ready = await fetch(`${app.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { detail: string }).detail).toMatch(
      /waiting for PostgreSQL at DATABASE_URL/,
    );
  } finally {
    await app.stop();
  }
  expect(app.output).not.toContain('hunter2');
}

/**
 * An app started with REDIS_URL on `redisPort`, where nothing listens yet: once it logs a retry naming REDIS_URL
 * `waiting` checks it, then a Redis starts there and `started` checks the app came up. Stopped, the app must
 * have logged at least two retries, each a warning naming the setting, and no unhandled error event.
 */
export async function expectWaitingForRedis(
  app: AppProcess,
  redisPort: number,
  checks: { waiting: () => Promise<void>; started: () => Promise<void> },
): Promise<void> {
  let redis: ChildProcess | undefined;
  try {
    const line = `cannot reach Redis at REDIS_URL redis://127.0.0.1:${redisPort}: connect ECONNREFUSED`;
    await app.waitForOutput(new RegExp(`${line}[^\\n]*retrying in 2 s`), 10000);
    await checks.waiting();
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', ''], {
      stdio: 'ignore',
    });
    await checks.started();
  } finally {
    await app.stop();
    redis?.kill('SIGKILL');
  }
  expect(app.output).not.toContain('Unhandled error event');
  const retries = app.output.split('\n').filter((entry) => entry.includes('cannot reach Redis'));
  expect(retries.length).toBeGreaterThanOrEqual(2);
  for (const entry of retries) expect(JSON.parse(entry)).toMatchObject({ setting: 'REDIS_URL', level: 40 });
}
