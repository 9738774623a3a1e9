/**
 * Issue 34's two measures (CONTRACTS §20): GET /usage for one organization holding 1 million stored replies,
 * and the erasure of an end user with 10 000 messages. A fresh database is bulk-loaded with generate_series:
 * BENCH_REPLIES replies (default 1 000 000) of 1 000 users over 30 days, with the usage_daily rows the reply
 * path keeps; then a real gateway answers GET /usage grouped each way (sequential requests: median, p99), and a
 * real worker erases a user of BENCH_ERASED_MESSAGES messages (default 10 000) in 100 threads (wall time from
 * DELETE to the receipt's `done`). Needs PostgreSQL and Redis (DATABASE_URL's server, REDIS_URL) and a build:
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/usage-erasure.js
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import {
  adminWith,
  benchAppEnv,
  benchNumbers,
  dropBenchStores,
  freePort,
  migrateBenchDatabase,
} from './support';
import { median, percentile, sleep, waitFor } from './support';

const DIST = join(__dirname, '..');
const { REPLIES, ERASED_MESSAGES, REQUESTS } = benchNumbers({
  REPLIES: 1_000_000,
  ERASED_MESSAGES: 10_000,
  REQUESTS: 50,
});
const USERS = 1000;
const THREADS = 20_000;

const ms = (value: number) => value.toFixed(2);

/** Threads of 1 000 users, REPLIES assistant replies with usage over the last 30 days, and their usage_daily rows. */
async function seed(db: Client, orgId: string, agentIds: string[]): Promise<void> {
  const started = performance.now();
  await db.query(
    `INSERT INTO threads (id, org_id, user_id, agent_id, name, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'user-' || (i % $2), ($3::uuid[])[1 + i % 2], 'Thread ' || i,
       now() - interval '30 days', now()
     FROM generate_series(1, $4) AS i`,
    [orgId, USERS, agentIds, THREADS],
  );
  await db.query(
    `INSERT INTO messages (id, thread_id, org_id, position, role, content, status, live, agent_id, created_at,
       completed_at, input_tokens, output_tokens, tool_calls, model)
     SELECT gen_random_uuid(), t.id, t.org_id, p, 'assistant', 'Reply', 'success', false, t.agent_id,
       now() - (p % 30) * interval '1 day', now() - (p % 30) * interval '1 day', 100 + p % 7, 20 + p % 5, p % 3,
       CASE WHEN p % 4 = 0 THEN 'openai:gpt-4o' ELSE 'builtin' END
     FROM threads t CROSS JOIN generate_series(0, $2::int / $3::int - 1) AS p WHERE t.org_id = $1`,
    [orgId, REPLIES, THREADS],
  );
  // The rollup as the statement that ends each reply keeps it.
  await db.query(
    `INSERT INTO usage_daily (org_id, day, user_id, agent_id, model, replies, input_tokens, output_tokens, tool_calls)
     SELECT m.org_id, (m.completed_at AT TIME ZONE 'UTC')::date, t.user_id, m.agent_id, m.model, count(*),
       sum(m.input_tokens), sum(m.output_tokens), sum(m.tool_calls)
     FROM messages m JOIN threads t ON t.id = m.thread_id WHERE m.org_id = $1 GROUP BY 1, 2, 3, 4, 5`,
    [orgId],
  );
  await db.query('ANALYZE');
  console.log(`seeded ${REPLIES} replies of ${USERS} users in ${ms(performance.now() - started)} ms`);
}

async function usageLatencies(baseUrl: string, token: string, groupBy: string): Promise<number[]> {
  const from = new Date(Date.now() - 31 * 86_400_000).toISOString().slice(0, 10);
  const latencies: number[] = [];
  for (let i = 0; i < REQUESTS; i += 1) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/usage?from=${from}&group_by=${groupBy}`, {
      headers: { 'x-service-token': token },
    });
    const body = (await response.json()) as { rows: { replies: number }[] };
    latencies.push(performance.now() - started);
    const replies = body.rows.reduce((sum, row) => sum + row.replies, 0);
    if (response.status !== 200 || replies !== REPLIES)
      throw new Error(`unexpected answer: ${replies} replies`);
  }
  return latencies;
}

function spawnApp(app: 'gateway' | 'worker', env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [join(DIST, 'apps', app, 'src', 'main.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function main(): Promise<void> {
  const name = `parley_bench_usage_${randomBytes(3).toString('hex')}`;
  const { databaseUrl, env } = benchAppEnv(name, { HOME: process.env.HOME });
  const children: ChildProcess[] = [];
  const db = new Client({ connectionString: databaseUrl });
  try {
    await migrateBenchDatabase(env);
    const admin = adminWith(env);
    const { key, org_id: orgId } = await admin(['keys:create', '--org', 'bench']);
    const agents = [
      (await admin(['agents:create', '--org', 'bench', '--name', 'first'])).id,
      (await admin(['agents:create', '--org', 'bench', '--name', 'second'])).id,
    ];
    await db.connect();
    await seed(db, orgId, agents);

    const port = await freePort();
    children.push(
      spawnApp('gateway', {
        ...env,
        PORT: String(port),
        STORAGE_PORT: String(await freePort()),
        HOST: '127.0.0.1',
      }),
    );
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitFor(
      () =>
        fetch(`${baseUrl}/health/ready`).then(
          (response) => response.ok,
          () => false,
        ),
      'gateway ready',
    );
    await usageLatencies(baseUrl, key, 'user'); // warm-up: connections, plans, caches
    console.log(`\nGET /usage over ${REPLIES} replies, last 31 days, ${REQUESTS} sequential requests, ms:\n`);
    console.log('| group_by | rows | median | p99 |\n|---|---|---|---|');
    for (const groupBy of ['user', 'agent', 'day', 'model']) {
      const latencies = await usageLatencies(baseUrl, key, groupBy);
      const rows = (
        (await (
          await fetch(`${baseUrl}/usage?from=2000-01-01&group_by=${groupBy}`, {
            headers: { 'x-service-token': key },
          })
        ).json()) as { rows: unknown[] }
      ).rows.length;
      console.log(`| ${groupBy} | ${rows} | ${ms(median(latencies))} | ${ms(percentile(latencies, 99))} |`);
    }

    const erased = `erased-${randomBytes(3).toString('hex')}`;
    const perThread = ERASED_MESSAGES / 100;
    await db.query(
      `WITH t AS (INSERT INTO threads (id, org_id, user_id, agent_id, name)
         SELECT gen_random_uuid(), $1, $2, $3, 'erased ' || n FROM generate_series(1, 100) n RETURNING id)
       INSERT INTO messages (id, thread_id, org_id, position, role, content, status, live, agent_id)
       SELECT gen_random_uuid(), t.id, $1, p, CASE WHEN p % 2 = 0 THEN 'user' ELSE 'assistant' END,
         'message ' || p, 'success', false, CASE WHEN p % 2 = 1 THEN $3::uuid END
       FROM t, generate_series(0, $4::int - 1) p`,
      [orgId, erased, agents[0], perThread],
    );
    children.push(spawnApp('worker', { ...env, WORKER_HEALTH_PORT: String(await freePort()) }));
    await sleep(5000); // the worker's start, outside the measure
    const started = performance.now();
    const requested = await fetch(`${baseUrl}/users/${erased}`, {
      method: 'DELETE',
      headers: { 'x-service-token': key },
    });
    const { erasure_id: erasureId } = (await requested.json()) as { erasure_id: string };
    let receipt: { status: string; counts: Record<string, number> } = { status: 'running', counts: {} };
    await waitFor(
      async () => {
        receipt = (await (
          await fetch(`${baseUrl}/erasures/${erasureId}`, { headers: { 'x-service-token': key } })
        ).json()) as typeof receipt;
        return receipt.status === 'done';
      },
      'erasure done',
      600_000,
    );
    console.log(
      `\nerasure of a user with ${ERASED_MESSAGES} messages in 100 threads, among ${REPLIES} replies: ` +
        `${ms(performance.now() - started)} ms from DELETE to done; counts ${JSON.stringify(receipt.counts)}`,
    );
  } finally {
    await db.end().catch(() => undefined);
    for (const child of children) child.kill('SIGTERM');
    await sleep(1000);
    await dropBenchStores(name);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
