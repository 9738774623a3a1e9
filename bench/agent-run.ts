/**
 * Agent runs end to end with the builtin model (no /sleep): completed replies a second through a real gateway
 * and 1 or 2 worker processes, and the runtime's own cost per step (time of a step not spent in the model call
 * or a tool: checkpoints, event writes, bookkeeping), measured in process around the step loop. Needs
 * PostgreSQL and Redis (DATABASE_URL's server, REDIS_URL) and a build:
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/agent-run.js
 *
 * Settings by environment: BENCH_REPLIES (per run, default 300), BENCH_RUNS (default 3), BENCH_CLIENTS
 * (concurrent POST /chat, default 16).
 */
import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { RunMetrics } from '@app/agent';
import { loadSettings } from '@app/config';
import { WorkerModule } from '../apps/worker/src/worker.module';
import { benchNumbers, REDIS_URL } from './support';
import { adminWith, benchAppEnv, dropBenchStores, freePort, migrateBenchDatabase } from './support';
import { median, percentile, sleep, waitFor } from './support';

const DIST = join(__dirname, '..');
const { REPLIES, RUNS, CLIENTS } = benchNumbers({ REPLIES: 300, RUNS: 3, CLIENTS: 16 });

function spawnApp(app: 'gateway' | 'worker', env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [join(DIST, 'apps', app, 'src', 'main.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const name = `parley_bench_${randomBytes(4).toString('hex')}`;
  const { databaseUrl, env } = benchAppEnv(name, { WORKER_HEALTH_PORT: '0' });
  await migrateBenchDatabase(env);
  const admin = adminWith(env);
  const { key } = await admin(['keys:create', '--org', 'bench']);
  const { id: agentId } = await admin(['agents:create', '--org', 'bench', '--name', 'bench']);
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();

  const port = await freePort();
  const gateway = spawnApp('gateway', { ...env, PORT: String(port), STORAGE_PORT: String(await freePort()) });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/health/ready`)).ok, 'gateway');

  const post = async (content: string) => {
    const response = await fetch(`${base}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': key },
      body: JSON.stringify({ message: { content }, options: { agent_id: agentId, user_id: 'bench' } }),
    });
    if (response.status !== 200) throw new Error(`POST /chat: ${response.status} ${await response.text()}`);
  };
  const done = async () =>
    Number(
      (await db.query(`SELECT count(*) AS n FROM messages WHERE role = 'assistant' AND NOT live`)).rows[0].n,
    );

  /** Posts `count` replies with CLIENTS concurrent clients; resolves when every reply has ended. */
  async function replies(count: number, content: string): Promise<number> {
    const before = await done();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < count) {
          next++;
          await post(content);
        }
      }),
    );
    while ((await done()) < before + count) await sleep(20);
    return performance.now() - started;
  }

  const throughput: Record<number, number[]> = {};
  for (const workerCount of [1, 2]) {
    const workers = Array.from({ length: workerCount }, () => spawnApp('worker', env));
    await sleep(3000);
    await replies(20, 'warm up');
    throughput[workerCount] = [];
    for (let index = 0; index < RUNS; index++) {
      const ms = await replies(REPLIES, 'hello there, how are you today?');
      throughput[workerCount].push((REPLIES / ms) * 1000);
    }
    await Promise.all(workers.map(stop));
  }

  // In process: the worker module itself, with the step loop's overhead histogram read sample by sample.
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(loadSettings(env)), {
    logger: ['error'],
  });
  await app.init();
  const metrics = app.get(RunMetrics);
  const overheads: number[] = [];
  const steps: number[] = [];
  const observeOverhead = metrics.stepOverhead.observe.bind(metrics.stepOverhead);
  metrics.stepOverhead.observe = ((value: number) => {
    overheads.push(value * 1000);
    observeOverhead(value);
  }) as typeof metrics.stepOverhead.observe;
  const observeStep = metrics.stepDuration.observe.bind(metrics.stepDuration);
  metrics.stepDuration.observe = ((value: number) => {
    steps.push(value * 1000);
    observeStep(value);
  }) as typeof metrics.stepDuration.observe;
  await replies(10, '/tool clock {}\n/say warm up');
  overheads.length = 0;
  steps.length = 0;
  // One reply at a time: the overhead itself, not waiting for a connection behind other runs.
  for (let index = 0; index < 100; index++) await replies(1, '/tool clock {}\n/say one two three');
  const sequential = { overhead: [...overheads], steps: [...steps] };
  // The machine's round trips right now, to read the overhead against: a step with a tool makes two durable
  // inserts (the step, the tool result) and three to five Redis writes.
  const redis = new Redis(REDIS_URL);
  const roundTrips = { postgres: [] as number[], commit: [] as number[], redis: [] as number[] };
  await db.query('CREATE TABLE bench_round_trip (id serial PRIMARY KEY, v text)');
  for (let index = 0; index < 200; index++) {
    let started = performance.now();
    await db.query('SELECT 1');
    roundTrips.postgres.push(performance.now() - started);
    started = performance.now();
    await db.query(`INSERT INTO bench_round_trip (v) VALUES ('x')`);
    roundTrips.commit.push(performance.now() - started);
    started = performance.now();
    await redis.ping();
    roundTrips.redis.push(performance.now() - started);
  }
  overheads.length = 0;
  steps.length = 0;
  await replies(REPLIES, '/tool clock {}\n/say one two three');
  const loaded = { overhead: [...overheads], steps: [...steps] };
  await app.close();

  await stop(gateway);
  await db.end();
  redis.disconnect();
  await dropBenchStores(name);

  const fmt = (n: number) => n.toFixed(3);
  console.log(`replies per run: ${REPLIES}, runs: ${RUNS}, clients: ${CLIENTS}`);
  for (const [count, values] of Object.entries(throughput)) {
    console.log(
      `${count} worker(s): median ${median(values).toFixed(1)} replies/s (runs: ${values.map((v) => v.toFixed(1)).join(', ')})`,
    );
  }
  console.log(
    `round trip medians now: PostgreSQL ${fmt(median(roundTrips.postgres))} ms, durable INSERT ` +
      `${fmt(median(roundTrips.commit))} ms, Redis ${fmt(median(roundTrips.redis))} ms`,
  );
  // One reply at a time, each reply's two steps are observed in order: its tool step, then its final step.
  const byKind = (parity: number) => sequential.overhead.filter((_, index) => index % 2 === parity);
  console.log(
    `step overhead, sequential, by kind: tool step median ${fmt(median(byKind(0)))} ms ` +
      `(p90 ${fmt(percentile(byKind(0), 90))}), final step median ${fmt(median(byKind(1)))} ms ` +
      `(p90 ${fmt(percentile(byKind(1), 90))})`,
  );
  for (const [label, sample] of Object.entries({ sequential, loaded })) {
    console.log(
      `step overhead, ${label} (${sample.overhead.length} steps): median ${fmt(median(sample.overhead))} ms, ` +
        `p90 ${fmt(percentile(sample.overhead, 90))} ms; step duration median ${fmt(median(sample.steps))} ms`,
    );
  }
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
