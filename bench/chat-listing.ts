/**
 * GET /chat?user_id=…&limit=100 with 100k threads (BENCHMARKS.md: median ≤ 10 ms). A fresh database holds
 * 100 000 threads of 1 000 users (each with threads of two agents, 5 % archived) and 200 000 messages (2 % of threads with a live
 * reply), seeded with generate_series; then a real gateway answers:
 *
 * 1. a sequential keep-alive client over many users (latency of one request: median, p99), several runs;
 * 2. the same with an `agent_ids` filter;
 * 3. autocannon with 8 connections on one user (throughput and latency under concurrency).
 *
 * Needs PostgreSQL and Redis (DATABASE_URL's server, REDIS_URL) and a build:
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/chat-listing.js
 *
 * BENCH_THREADS (default 100000), BENCH_USERS (1000), BENCH_RUNS (3), BENCH_REQUESTS (1000 per run).
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { Client } from 'pg';
import {
  adminWith,
  benchAppEnv,
  benchNumbers,
  dropBenchStores,
  freePort,
  migrateBenchDatabase,
} from './support';
import { median, percentile, sleep } from './support';

const run = promisify(execFile);
const DIST = join(__dirname, '..');
const { THREADS, USERS, RUNS, REQUESTS } = benchNumbers({
  THREADS: 100000,
  USERS: 1000,
  RUNS: 3,
  REQUESTS: 1000,
});

const ms = (value: number) => value.toFixed(2);

async function seed(databaseUrl: string, orgId: string, agentIds: [string, string]): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const started = performance.now();
    await db.query(
      `INSERT INTO threads (id, org_id, user_id, agent_id, name, archived_at, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'user-' || (i % $2), CASE WHEN (i / $2) % 2 = 0 THEN $3::uuid ELSE $4::uuid END,
              'Thread ' || i, CASE WHEN (i / $2) % 20 = 0 THEN now() END,
              now() - i * interval '1 second', now() - i * interval '1 second'
       FROM generate_series(1, $5) AS i`,
      [orgId, USERS, agentIds[0], agentIds[1], THREADS],
    );
    await db.query(
      `INSERT INTO messages (id, thread_id, org_id, position, role, content, status, live, agent_id, created_at)
       SELECT gen_random_uuid(), t.id, t.org_id, p, CASE p WHEN 0 THEN 'user' ELSE 'assistant' END, 'Hello',
              CASE WHEN p = 1 AND abs(hashtext(t.id::text)) % 50 = 0 THEN 'pending' ELSE 'success' END,
              p = 1 AND abs(hashtext(t.id::text)) % 50 = 0,
              CASE p WHEN 1 THEN t.agent_id END, t.created_at
       FROM threads t CROSS JOIN generate_series(0, 1) AS p`,
    );
    await db.query('ANALYZE threads');
    await db.query('ANALYZE messages');
    console.log(`seeded ${THREADS} threads of ${USERS} users in ${ms(performance.now() - started)} ms`);
  } finally {
    await db.end();
  }
}

/** One request at a time on a keep-alive connection, rotating over users; latency of each. */
async function sequential(
  baseUrl: string,
  token: string,
  query: (user: string) => string,
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < REQUESTS; i += 1) {
    const user = `user-${(i * 7919) % USERS}`;
    const started = performance.now();
    const response = await fetch(`${baseUrl}/chat?${query(user)}`, { headers: { 'x-service-token': token } });
    const body = (await response.json()) as unknown[];
    latencies.push(performance.now() - started);
    if (response.status !== 200 || body.length === 0) throw new Error(`unexpected answer ${response.status}`);
  }
  return latencies;
}

interface AutocannonReport {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
}

async function loaded(url: string, token: string): Promise<AutocannonReport> {
  const args = [require.resolve('autocannon/autocannon.js'), '-c', '8', '-d', '5', '-j'];
  const { stdout } = await run(process.execPath, [...args, '-H', `x-service-token=${token}`, url]);
  return JSON.parse(stdout) as AutocannonReport;
}

async function main(): Promise<void> {
  const name = `parley_bench_listing_${randomBytes(3).toString('hex')}`;
  const { env } = benchAppEnv(name, { HOME: process.env.HOME });
  let gateway: ChildProcess | undefined;
  try {
    await migrateBenchDatabase(env);
    const admin = adminWith(env);
    const { key, org_id: orgId } = await admin(['keys:create', '--org', 'bench']);
    const first = await admin(['agents:create', '--org', 'bench', '--name', 'first']);
    const second = await admin(['agents:create', '--org', 'bench', '--name', 'second']);
    await seed(env.DATABASE_URL!, orgId, [first.id, second.id]);

    const port = await freePort();
    gateway = spawn(process.execPath, [join(DIST, 'apps/gateway/src/main.js')], {
      env: { ...env, PORT: String(port), STORAGE_PORT: String(await freePort()), HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    for (let ready = false; !ready; await sleep(100)) {
      ready = await fetch(`${baseUrl}/health/ready`).then(
        (response) => response.ok,
        () => false,
      );
    }

    const page = (user: string) => `user_id=${user}&limit=100`;
    const filtered = (user: string) => `user_id=${user}&limit=100&agent_ids=${first.id}`;
    await sequential(baseUrl, key, page); // warm-up: connections, plans, caches
    const rows: string[] = [];
    for (let i = 1; i <= RUNS; i += 1) {
      const plain = await sequential(baseUrl, key, page);
      const byAgent = await sequential(baseUrl, key, filtered);
      rows.push(
        `| ${i} | ${ms(median(plain))} | ${ms(percentile(plain, 99))} | ${ms(median(byAgent))} | ${ms(percentile(byAgent, 99))} |`,
      );
    }
    console.log(`\n${REQUESTS} sequential requests per run, limit=100, ms:\n`);
    console.log('| run | median | p99 | median, agent_ids | p99, agent_ids |\n|---|---|---|---|---|');
    console.log(rows.join('\n'));

    const report = await loaded(`${baseUrl}/chat?${page('user-1')}`, key);
    console.log(
      `\nautocannon -c 8 -d 5, one user: ${Math.round(report.requests.average)} req/s, ` +
        `latency p50 ${report.latency.p50} ms, p99 ${report.latency.p99} ms, non-2xx ${report.non2xx}`,
    );
  } finally {
    gateway?.kill('SIGTERM');
    await sleep(500);
    await dropBenchStores(name);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
