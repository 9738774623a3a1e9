/**
 * PostgreSQL statements per conversation, counted rather than timed (issue 45): the count does not depend on how
 * busy the machine is, so two builds can be compared on a loaded box. One organization; N conversations
 * (`POST /chat`, its stream read to `message.completed`), C at a time, on a private PostgreSQL cluster with
 * pg_stat_statements (BEGIN, COMMIT and other utility statements counted too) and a private redis-server.
 *
 * What the service does on its own meanwhile (the usage fold each second, sweeps) is counted apart: an idle
 * window as long as the conversations' is counted the same way right after, and its calls are taken off, statement
 * by statement. The remainder is the conversations' own.
 *
 *   PARLEY_DIST=/tmp/dist-count npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-count/bench/statement-count.js
 *
 * Beside each count, the server's time (execution and planning, ms per conversation) and how often it planned the
 * statement: times depend on the machine, but a statement planned once per call, where a kept plan was meant, shows
 * there on any machine.
 *
 * Environment: BENCH_CONVERSATIONS (100), BENCH_CLIENTS (4: conversations at a time), BENCH_WORDS (10) and
 * BENCH_SLEEP_MS (0): the reply says that many words, that many ms apart (the paced workload is 100 and 40; its
 * journal statements then depend on timing, the rest do not). BENCH_NESTED=1 also counts the statements that
 * functions and triggers run, as rows of their own (the total then counts them twice: inside their caller too),
 * and times each function.
 */
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { converse, Target } from './conversation-client';
import { PrivatePostgres, PrivateRedis } from './private-stores';
import {
  benchNumbers,
  Cleanup,
  createBenchEnvironment,
  passedSettings,
  runBenchmark,
  sleep,
} from './support';

const { CONVERSATIONS, CLIENTS, WORDS, SLEEP_MS } = benchNumbers({
  CONVERSATIONS: 100,
  CLIENTS: 4,
  WORDS: 10,
  SLEEP_MS: 0,
});
const EXPECTED = Array.from({ length: WORDS }, (_, i) => `word${i}`).join(' ');
const CONTENT = `${SLEEP_MS > 0 ? `/sleep ${SLEEP_MS}\n` : ''}/say ${EXPECTED}`;
/** After the last `message.completed`: the worker's statements after the final one (waking the next reply). */
const SETTLE_MS = 1000;

const NESTED = process.env.BENCH_NESTED === '1';

/** What pg_stat_statements holds of one statement text: calls, server ms (execution and planning), plans. */
interface Usage {
  calls: number;
  ms: number;
  plans: number;
}

async function usageByText(postgres: Client, database: string): Promise<Map<string, Usage>> {
  const { rows } = await postgres.query<{ query: string; calls: string; ms: number; plans: string }>(
    `SELECT s.query, s.calls, s.total_exec_time + s.total_plan_time AS ms, s.plans
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
    [database],
  );
  const byText = new Map<string, Usage>();
  for (const row of rows) {
    const text = row.query.replace(/\s+/g, ' ').trim();
    const seen = byText.get(text) ?? { calls: 0, ms: 0, plans: 0 };
    byText.set(text, {
      calls: seen.calls + Number(row.calls),
      ms: seen.ms + Number(row.ms),
      plans: seen.plans + Number(row.plans),
    });
  }
  return byText;
}

interface FunctionTime {
  funcname: string;
  calls: string;
  total_time: number;
  self_time: number;
}

/** A statement in the benchmark's database, where the per-database statistics of functions are. */
async function inDatabase<Row extends object>(databaseUrl: string, sql: string): Promise<Row[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function conversations(target: Target, count: number, clients: number): Promise<void> {
  let started = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (started < count) {
        started++;
        await converse(target, CONTENT, EXPECTED);
      }
    }),
  );
}

const cleanups: Cleanup[] = [];

async function measure(): Promise<void> {
  const postgres = await PrivatePostgres.start({ statements: true, nested: NESTED });
  cleanups.push(() => postgres.dispose());
  const redis = await PrivateRedis.start();
  cleanups.push(() => redis.dispose());
  const environment = await createBenchEnvironment(
    { LOG_LEVEL: 'warn', ...passedSettings() },
    { databaseUrl: postgres.url, redisUrl: redis.url },
  );
  cleanups.push(() => environment.dispose());
  const { key } = await environment.admin(['keys:create', '--org', 'count']);
  const { id: agentId } = await environment.admin(['agents:create', '--org', 'count', '--name', 'count']);
  const maintenance = new Client({ connectionString: postgres.url });
  await maintenance.connect();
  cleanups.push(() => maintenance.end());
  await maintenance.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const { url } = await environment.startGateway();
  await environment.startWorker();
  const target = { url, key, agentId };
  await conversations(target, Math.min(20, CONVERSATIONS), CLIENTS); // warm-up: pools, prepared statements
  await sleep(SETTLE_MS);

  await maintenance.query('SELECT pg_stat_statements_reset()');
  await inDatabase(environment.databaseUrl, 'SELECT pg_stat_reset()');
  const started = performance.now();
  await conversations(target, CONVERSATIONS, CLIENTS);
  await sleep(SETTLE_MS);
  const busy = await usageByText(maintenance, environment.name);
  const functions = NESTED
    ? await inDatabase<FunctionTime>(
        environment.databaseUrl,
        'SELECT funcname, calls, total_time, self_time FROM pg_stat_user_functions ORDER BY total_time DESC',
      )
    : [];
  const windowMs = performance.now() - started;

  await maintenance.query('SELECT pg_stat_statements_reset()');
  await sleep(windowMs);
  const idle = await usageByText(maintenance, environment.name);

  const none: Usage = { calls: 0, ms: 0, plans: 0 };
  const per = (n: number) => n / CONVERSATIONS;
  const rows = [...new Set([...busy.keys(), ...idle.keys()])]
    .map((text) => ({ text, busyUsage: busy.get(text) ?? none, idleUsage: idle.get(text) ?? none }))
    .filter((row) => !/pg_stat_statements|pg_stat_reset|pg_stat_user_functions/.test(row.text))
    .map(({ text, busyUsage, idleUsage }) => ({
      text,
      busy: busyUsage.calls,
      idle: idleUsage.calls,
      own: busyUsage.calls - idleUsage.calls,
      ms: busyUsage.ms - idleUsage.ms,
      plans: busyUsage.plans - idleUsage.plans,
    }))
    .sort((a, b) => b.own - a.own);
  const total = (pick: (row: (typeof rows)[number]) => number) =>
    per(rows.reduce((sum, row) => sum + pick(row), 0));
  const cell = (text: string) => text.replace(/\|/g, '\\|').slice(0, 150);
  process.stdout.write(
    [
      `${CONVERSATIONS} conversations, ${CLIENTS} at a time, "${CONTENT.replace(/\n/g, ' ').slice(0, 60)}", ` +
        `window ${(windowMs / 1000).toFixed(1)} s`,
      `statements per conversation: ${total((row) => row.own).toFixed(2)} ` +
        `(${total((row) => row.busy).toFixed(2)} counted, ${total((row) => row.idle).toFixed(2)} in an idle window as long)`,
      '',
      `server time per conversation: ${total((row) => row.ms).toFixed(3)} ms (execution and planning)`,
      '',
      '| statement | per conversation | counted | idle | server ms per conversation | plans per conversation |',
      '|---|---|---|---|---|---|',
      ...rows
        .filter((row) => Math.abs(per(row.own)) >= 0.005 || row.busy > 0)
        .map(
          (row) =>
            `| \`${cell(row.text)}\` | ${per(row.own).toFixed(2)} | ${row.busy} | ${row.idle} | ` +
            `${per(row.ms).toFixed(3)} | ${per(row.plans).toFixed(2)} |`,
        ),
      '',
      ...(NESTED
        ? [
            '| function | calls per conversation | ms per conversation | of which its own (not in functions it calls) |',
            '|---|---|---|---|',
            ...functions.map(
              (fn) =>
                `| \`${fn.funcname}\` | ${per(Number(fn.calls)).toFixed(2)} | ${per(fn.total_time).toFixed(3)} | ` +
                `${per(fn.self_time).toFixed(3)} |`,
            ),
            '',
          ]
        : []),
    ].join('\n'),
  );
}

runBenchmark(cleanups, measure);
