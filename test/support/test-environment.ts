import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { Client } from 'pg';

const run = promisify(execFile);

/** Where the compiled apps are: `npm test` builds into dist/ first; PARLEY_DIST points elsewhere if wanted. */
export const DIST = process.env.PARLEY_DIST ?? join(__dirname, '..', '..', 'dist');
export const appScript = (app: 'gateway' | 'worker' | 'admin', file = 'main.js') =>
  join(DIST, 'apps', app, 'src', file);

const BASE_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A database and a Redis prefix of its own for one test file: created and migrated here, dropped by
 * `dispose()`. Several test runs (and test files) can share one PostgreSQL and one Redis.
 */
export interface TestEnvironment {
  name: string;
  env: NodeJS.ProcessEnv;
  databaseUrl: string;
  redisPrefix: string;
  dispose(): Promise<void>;
}

/**
 * The names of test environments: `parley_test_<pid>_<time>_<random>`, the pid of the test process that made it,
 * so a later run can tell the leftovers of a killed run (its process gone) from those of a run still going.
 */
const NAME_PREFIX = 'parley_test_';
const ownerPid = (name: string): number | null => {
  const match = /^parley_test_(\d+)_[0-9a-z]+_[0-9a-f]+$/.exec(name);
  return match ? Number(match[1]) : null;
};
/** A name of the older form, `parley_test_<time>_<random>`, when it is over a day old. */
const isStaleUnowned = (name: string): boolean => {
  const match = /^parley_test_([0-9a-z]+)_[0-9a-f]+$/.exec(name);
  return match !== null && Date.now() - parseInt(match[1], 36) > 24 * 3600 * 1000;
};

export async function createTestEnvironment(extraEnv: NodeJS.ProcessEnv = {}): Promise<TestEnvironment> {
  const name = `${NAME_PREFIX}${process.pid}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const url = new URL(BASE_DATABASE_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // The compiled apps may live outside the checkout (PARLEY_DIST): let them find its node_modules.
    NODE_PATH: join(__dirname, '..', '..', 'node_modules'),
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: name,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    JOB_LOCK_MS: '2000',
    JOB_STALLED_INTERVAL_MS: '1000',
    ...extraEnv,
  };
  await run(process.execPath, [appScript('admin', 'migrate.js')], { env });
  return {
    name,
    env,
    databaseUrl,
    redisPrefix: name,
    dispose: async () => {
      await dropDatabase(name);
      await deleteRedisKeys(name);
    },
  };
}

async function dropDatabase(name: string): Promise<void> {
  const client = new Client({ connectionString: BASE_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Drops what killed test runs left behind: the databases and Redis prefixes of test environments whose test
 * process no longer runs (and those a day old, named before names carried a pid). Runs still going, in this
 * checkout or another, keep theirs. Answers the names it dropped.
 */
export async function dropLeftoverEnvironments(): Promise<string[]> {
  const client = new Client({ connectionString: BASE_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE '${NAME_PREFIX}%'`,
    );
    const leftovers = rows
      .map((row) => row.datname)
      .filter((name) => {
        const pid = ownerPid(name);
        return pid === null ? isStaleUnowned(name) : !isRunning(pid);
      });
    for (const name of leftovers) {
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await deleteRedisKeys(name);
    }
    return leftovers;
  } finally {
    await client.end();
  }
}

/**
 * Deletes every Redis key of a test prefix: Redis losing that environment's data (jobs, logs, locks). The
 * benchmarks clear their prefix with it too, on a Redis of their own when they bring one (`redisUrl`).
 */
export async function deleteRedisKeys(prefix: string, redisUrl = REDIS_URL): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** A query on the test database, for the few checks that must read a table (e.g. no key stored in clear). */
export async function queryDatabase<T extends object>(
  databaseUrl: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
