/**
 * What the benchmarks share: a database and Redis prefix of their own, the compiled apps as child processes,
 * the admin CLI, and percentiles. Benchmarks run from a build (see each script's header for the command).
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freePort } from '../test/support/processes';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { deleteRedisKeys } from '../test/support/test-environment';

const run = promisify(execFile);
const DIST = join(__dirname, '..');
export const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Node flags for the gateway and worker, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them. */
const APP_NODE_ARGS = (process.env.BENCH_APP_NODE_ARGS ?? '').split(' ').filter(Boolean);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const median = (values: number[]) => percentile(values, 50);

/** The promise, or a 'timed out' failure after `ms` (the timer cleared either way). */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer!: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Exponential inter-arrival time of a Poisson process of `rate` per second, in ms: an open loop's arrivals. */
export const interArrivalMs = (rate: number) => (-Math.log(1 - Math.random()) / rate) * 1000;

/**
 * A benchmark's numeric settings: each key's value is the environment's `BENCH_<key>`, else its default, so a run
 * is sized without editing the script (e.g. `BENCH_CLIENTS=100`).
 */
export function benchNumbers<Key extends string>(defaults: Record<Key, number>): Record<Key, number> {
  const settings = Object.entries<number>(defaults).map(([key, fallback]) => [
    key,
    Number(process.env[`BENCH_${key}`] ?? fallback),
  ]);
  return Object.fromEntries(settings) as Record<Key, number>;
}

/** One port picker for tests and benchmarks: below the ephemeral range, so no outgoing connection takes it. */
export { freePort };

export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} not ready in time`);
    await sleep(100);
  }
}

/**
 * The database URL and the apps' environment of a benchmark that starts its own processes on the shared servers:
 * a database `name` beside DATABASE_URL's, the Redis prefix `name`, only PATH and NODE_PATH of this process's
 * environment, warnings only, and `extraEnv`.
 */
export function benchAppEnv(
  name: string,
  extraEnv: NodeJS.ProcessEnv = {},
): { databaseUrl: string; env: NodeJS.ProcessEnv } {
  const databaseUrl = Object.assign(new URL(BASE_DATABASE_URL), { pathname: `/${name}` }).toString();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_PATH: process.env.NODE_PATH,
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: name,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  return { databaseUrl, env };
}

/** Migrates the database of `env` with the compiled migration. */
export async function migrateBenchDatabase(env: NodeJS.ProcessEnv): Promise<void> {
  await run(process.execPath, [join(DIST, 'apps/admin/src/migrate.js')], { env });
}

/** The compiled admin CLI run with `env`, answering the JSON object it prints. */
export const adminWith = (env: NodeJS.ProcessEnv) => async (args: string[]) =>
  JSON.parse((await run(process.execPath, [join(DIST, 'apps/admin/src/main.js'), ...args], { env })).stdout);

/** Settings of the apps a benchmark's environment may set for the processes it starts (all unset: defaults). */
const PASSED_SETTINGS = [
  'LOG_LEVEL',
  'AGENT_RUN_CONCURRENCY',
  'AGENT_RUN_ORG_CONCURRENCY',
  'STREAM_HOLD_MS',
  'HEAP_GROWTH_PERCENT',
  'ADMISSION_MAX_QUEUED_RUNS',
  'ADMISSION_MAX_EVENT_LOOP_DELAY_MS',
  'ADMISSION_MAX_REPLY_START_MS',
  'ADMISSION_MAX_RUN_START_WAIT_MS',
];

/** The PASSED_SETTINGS set in this process's environment, to hand on to gateway and worker. */
export const passedSettings = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    PASSED_SETTINGS.filter((name) => process.env[name]).map((name) => [name, process.env[name]]),
  );

export interface BenchEnvironment {
  name: string;
  env: NodeJS.ProcessEnv;
  databaseUrl: string;
  admin<T = Record<string, string>>(args: string[]): Promise<T>;
  /** A gateway process on a free port, ready. */
  startGateway(extra?: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }>;
  /** A worker process, consuming once its log says so. */
  startWorker(extra?: NodeJS.ProcessEnv): Promise<ChildProcess>;
  dispose(): Promise<void>;
}

/** Where a benchmark's database and Redis live: the shared servers unless a benchmark brings its own. */
interface BenchStores {
  /** A URL of the cluster's maintenance database; the benchmark's own database is created beside it. */
  databaseUrl: string;
  redisUrl: string;
}

/** The shared PostgreSQL and Redis, where a benchmark's stores live unless it brings its own. */
const SHARED_STORES: BenchStores = { databaseUrl: BASE_DATABASE_URL, redisUrl: REDIS_URL };

/** A fresh, migrated database and a Redis prefix for one benchmark run; `dispose` drops both. */
export async function createBenchEnvironment(
  extraEnv: NodeJS.ProcessEnv = {},
  stores: BenchStores = SHARED_STORES,
): Promise<BenchEnvironment> {
  const name = `parley_bench_${randomBytes(4).toString('hex')}`;
  const databaseUrl = Object.assign(new URL(stores.databaseUrl), { pathname: `/${name}` }).toString();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_PATH: process.env.NODE_PATH ?? join(__dirname, '..', '..', 'node_modules'),
    DATABASE_URL: databaseUrl,
    REDIS_URL: stores.redisUrl,
    REDIS_PREFIX: name,
    LOG_LEVEL: 'warn',
    WORKER_HEALTH_PORT: '0',
    ...extraEnv,
  };
  await migrateBenchDatabase(env);
  const children: ChildProcess[] = [];
  const spawnApp = (app: 'gateway' | 'worker', appEnv: NodeJS.ProcessEnv) => {
    const child = spawn(process.execPath, [...APP_NODE_ARGS, join(DIST, 'apps', app, 'src', 'main.js')], {
      env: appEnv,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    return child;
  };
  return {
    name,
    env,
    databaseUrl,
    admin: adminWith(env),
    startGateway: async (extra = {}) => {
      const port = await freePort();
      const child = spawnApp('gateway', {
        ...env,
        PORT: String(port),
        STORAGE_PORT: String(await freePort()),
        ...extra,
      });
      // Drained, so that a gateway logging at info (as `npm start` runs it) never blocks on a full pipe.
      child.stdout?.resume();
      const url = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${url}/health/ready`)).ok, 'gateway');
      return { child, url };
    },
    startWorker: async (extra = {}) => {
      const child = spawnApp('worker', { ...env, LOG_LEVEL: 'info', ...extra });
      await new Promise<void>((resolve, reject) => {
        let output = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('worker started')) resolve();
        });
        child.once('exit', () => reject(new Error('worker exited at start')));
      });
      child.stdout?.resume();
      return child;
    },
    dispose: async () => {
      await Promise.all(
        children.map(async (child) => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }),
      );
      await dropBenchStores(name, stores);
    },
  };
}

/** Drops the benchmark database `name`, connections and all, from the cluster of `databaseUrl`. */
export async function dropBenchDatabase(name: string, databaseUrl = BASE_DATABASE_URL): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();
}

/** What a benchmark run leaves in the stores: its database `name` and the Redis keys under that prefix. */
export async function dropBenchStores(name: string, stores: BenchStores = SHARED_STORES): Promise<void> {
  await dropBenchDatabase(name, stores.databaseUrl);
  await deleteRedisKeys(name, stores.redisUrl);
}

/** Something a benchmark started, to stop on the way out. */
export type Cleanup = () => Promise<unknown>;

/**
 * Runs a benchmark's `measure`, then `cleanups` (latest first) also after a failure or a Ctrl-C: pg_ctl daemonizes
 * a private cluster, so an interrupted run would otherwise leave it running. Exits 0, or 1 with the error.
 */
export function runBenchmark(cleanups: Cleanup[], measure: () => Promise<void>): void {
  const stopped = new Promise<never>((_, reject) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
      process.once(signal, () => reject(new Error(`stopped by ${signal}`)));
  });
  const run = async () => {
    try {
      await Promise.race([measure(), stopped]);
    } finally {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    }
  };
  run().then(
    () => process.exit(0),
    (error: Error) => {
      process.stderr.write(`${error.stack}\n`);
      process.exit(1);
    },
  );
}
