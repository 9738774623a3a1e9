/**
 * The soak (issue 36 item 7): 16 end users of one organization doing mixed work for an hour, against one gateway
 * and one worker as `npm start` runs them (default settings, info logs) on a PostgreSQL cluster and a redis-server
 * of the benchmark's own. Each client cycles through a tool round, a paced reply (`/sleep 40`, 50 words, text
 * checked), an upload used in a message, and follow-ups on its own thread (a new thread every 10 follow-ups), one
 * second apart; a routine fires every minute meanwhile. Not a speed benchmark: what must hold is that memory,
 * latency and the stores stay flat or grow as the data does.
 *
 * Every SAMPLE seconds: RSS, V8 heap used and event-loop lag p99 of gateway and worker (their /metrics), and the
 * conversations of the interval (count, errors, latency). Every REPORT minutes (the work of counting is kept out
 * of the measured minutes between): the database's size and rows, Redis's keys (and those without a TTL, which
 * must not grow: a finished reply's log expires after RUN_EVENTS_TTL_SECONDS) and memory. Prints one row per
 * REPORT minutes, the first and last samples compared, and every sample as JSON lines to OUT.
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/soak.js
 *
 * Environment: BENCH_SOAK_MINUTES (60), BENCH_SOAK_CLIENTS (16), BENCH_SAMPLE_SECONDS (30), BENCH_REPORT_MINUTES
 * (5), BENCH_SOAK_OUT (/tmp/parley-soak.jsonl).
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { readReply, Target } from './conversation-client';
import { PrivatePostgres, PrivateRedis } from './private-stores';
import {
  benchNumbers,
  Cleanup,
  createBenchEnvironment,
  freePort,
  median,
  percentile,
  runBenchmark,
  sleep,
} from './support';

const {
  SOAK_MINUTES: MINUTES,
  SOAK_CLIENTS: CLIENTS,
  SAMPLE_SECONDS,
  REPORT_MINUTES,
} = benchNumbers({ SOAK_MINUTES: 60, SOAK_CLIENTS: 16, SAMPLE_SECONDS: 30, REPORT_MINUTES: 5 });
const OUT = process.env.BENCH_SOAK_OUT ?? '/tmp/parley-soak.jsonl';

const PACED_WORDS = Array.from({ length: 50 }, (_, i) => `word${i}`).join(' ');
const FOLLOW_UPS_PER_THREAD = 10;
const TASKS = ['tool round', 'paced reply', 'upload', 'follow-up', 'follow-up'] as const;
type Task = (typeof TASKS)[number];

interface Done {
  task: Task;
  totalMs: number;
  firstDeltaMs: number;
}

/** What the clients did since the last sample. */
class Interval {
  done: Done[] = [];
  errors: string[] = [];

  take(): Interval {
    const taken = Object.assign(new Interval(), this);
    this.done = [];
    this.errors = [];
    return taken;
  }
}

/** One end user's loop: the tasks in turn, one second apart, until `until`. */
async function client(target: Target, userId: string, until: number, interval: Interval): Promise<void> {
  const headers = { 'content-type': 'application/json', 'x-service-token': target.key };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answers are read field by field below
  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${target.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status !== 200)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const upload = async (): Promise<string> => {
    const query = new URLSearchParams({ filename: 'notes.txt', mimetype: 'text/plain', user_id: userId });
    const permission = await api('GET', `/chat/files/upload?${query.toString()}`);
    const form = new FormData();
    for (const [name, value] of Object.entries(permission.fields as Record<string, string>))
      form.append(name, value);
    form.append(
      'file',
      new Blob([Buffer.from(`notes of ${userId} at ${Date.now()}\n`.repeat(50))]),
      'notes.txt',
    );
    const stored = await fetch(permission.url, { method: 'POST', body: form });
    if (stored.status !== 204) throw new Error(`upload: ${stored.status}`);
    return permission.fields['x-amz-meta-file-id'];
  };
  const start = async (message: unknown) => {
    const thread = await api('POST', '/chat', {
      message,
      options: { agent_id: target.agentId, user_id: userId },
    });
    return { threadId: thread.id as string, replyId: thread.messages[1].id as string };
  };

  let threadId: string | undefined;
  let followUps = 0;
  for (let turn = 0; Date.now() < until; turn++) {
    const task = TASKS[turn % TASKS.length];
    const started = performance.now();
    try {
      let replyId: string;
      let expected: string | undefined;
      if (task === 'tool round') ({ replyId } = await start({ content: '/tool clock {}\nWhat time is it?' }));
      else if (task === 'paced reply') {
        ({ replyId } = await start({ content: `/sleep 40\n/say ${PACED_WORDS}` }));
        expected = PACED_WORDS;
      } else if (task === 'upload')
        ({ replyId } = await start({ content: '/say read', file_ids: [await upload()] }));
      else if (threadId === undefined || followUps >= FOLLOW_UPS_PER_THREAD) {
        ({ threadId, replyId } = await start({ content: '/say hello' }));
        followUps = 0;
      } else {
        replyId = (await api('POST', `/chat/${threadId}`, { message: { content: `/say more ${followUps}` } }))
          .id;
        followUps++;
      }
      const { firstDeltaMs } = await readReply(target, replyId, started, expected);
      interval.done.push({ task, totalMs: performance.now() - started, firstDeltaMs });
    } catch (error) {
      interval.errors.push(`${task}: ${(error as Error).message.slice(0, 200)}`);
    }
    await sleep(1000);
  }
}

/** RSS of a process in MiB. */
function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

/** The figures of a Prometheus text body this soak reads (prom-client's default process metrics). */
async function processMetrics(url: string): Promise<{ heapUsedMiB: number; loopLagP99Ms: number }> {
  const text = await (await fetch(url)).text();
  const value = (name: string) => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
    if (!match) throw new Error(`${name} missing from ${url}`);
    return Number(match[1]);
  };
  return {
    heapUsedMiB: value('nodejs_heap_size_used_bytes') / 2 ** 20,
    loopLagP99Ms: value('nodejs_eventloop_lag_p99_seconds') * 1000,
  };
}

interface Sample {
  minute: number;
  conversations: number;
  errors: number;
  totalP50Ms: number;
  totalP99Ms: number;
  firstDeltaP99Ms: number;
  gatewayRssMiB: number;
  workerRssMiB: number;
  gatewayHeapMiB: number;
  workerHeapMiB: number;
  gatewayLagP99Ms: number;
  workerLagP99Ms: number;
  /** Taken at the first sample and at each row only: counting rows and keys is work the soak must not add often. */
  stores?: StoreFigures;
}

interface StoreFigures {
  databaseMiB: number;
  rows: Record<string, number>;
  redisKeys: number;
  redisKeysWithoutTtl: number;
  /** Keys without a TTL by shape (see keyShape), most first. */
  redisKeysWithoutTtlByShape: Record<string, number>;
  redisMiB: number;
  routineThreads: number;
}

/** Exact row counts of the tables that grow with the work. */
const COUNTED_TABLES = [
  'threads',
  'messages',
  'run_steps',
  'tool_calls',
  'conversation_files',
  'run_stream_journal',
  'token_usage_pending',
  'usage_daily',
  'idempotency_keys',
];

async function tableRows(database: Client): Promise<Record<string, number>> {
  const present = await database.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relname = ANY($1)`,
    [COUNTED_TABLES],
  );
  const rows: Record<string, number> = {};
  for (const { name } of present.rows)
    rows[name] = Number((await database.query(`SELECT count(*) AS n FROM "${name}"`)).rows[0].n);
  return rows;
}

/** A key's shape: the prefix and ids replaced by `*`, so keys of one kind count together. */
const keyShape = (key: string) =>
  key.replace(/^[^:]+:/, '').replace(/[0-9a-f]{8}-[0-9a-f-]{27}|\b\d+\b|[0-9A-Za-z_-]{21,}/g, '*');

async function redisKeys(
  redis: Redis,
): Promise<{ all: number; withoutTtl: number; shapes: Map<string, number> }> {
  let cursor = '0';
  let all = 0;
  let withoutTtl = 0;
  const shapes = new Map<string, number>();
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    all += keys.length;
    if (keys.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.ttl(key);
    const ttls = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      if (ttls[i][1] !== -1) return;
      withoutTtl++;
      shapes.set(keyShape(key), (shapes.get(keyShape(key)) ?? 0) + 1);
    });
  } while (cursor !== '0');
  return { all, withoutTtl, shapes };
}

async function storeFigures(database: Client, redis: Redis): Promise<StoreFigures> {
  const keys = await redisKeys(redis);
  const size = await database.query(`SELECT pg_database_size(current_database()) AS bytes`);
  const routineThreads = await database.query(
    `SELECT count(*) AS n FROM threads WHERE inception = 'routine'`,
  );
  return {
    databaseMiB: Number(size.rows[0].bytes) / 2 ** 20,
    rows: await tableRows(database),
    redisKeys: keys.all,
    redisKeysWithoutTtl: keys.withoutTtl,
    redisKeysWithoutTtlByShape: Object.fromEntries([...keys.shapes].sort((a, b) => b[1] - a[1]).slice(0, 8)),
    redisMiB: Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]) / 2 ** 20,
    routineThreads: Number(routineThreads.rows[0].n),
  };
}

const fixed = (value: number, digits = 0) => value.toFixed(digits);

function row(window: Sample[]): string {
  const last = window[window.length - 1];
  const stores = last.stores!;
  const max = (pick: (s: Sample) => number) => Math.max(...window.map(pick));
  const lag = (pick: (s: Sample) => number) => fixed(max(pick), 1);
  const conversations = window.reduce((n, s) => n + s.conversations, 0);
  const seconds = window.length * SAMPLE_SECONDS;
  return (
    `| ${fixed(last.minute)} | ${conversations} (${fixed(conversations / seconds, 1)}/s) | ` +
    `${window.reduce((n, s) => n + s.errors, 0)} | ${fixed(median(window.map((s) => s.totalP50Ms)))} / ` +
    `${fixed(max((s) => s.totalP99Ms))} | ${fixed(max((s) => s.firstDeltaP99Ms))} | ` +
    `${fixed(last.gatewayRssMiB)} / ${fixed(last.workerRssMiB)} | ` +
    `${fixed(last.gatewayHeapMiB)} / ${fixed(last.workerHeapMiB)} | ` +
    `${lag((s) => s.gatewayLagP99Ms)} / ${lag((s) => s.workerLagP99Ms)} | ` +
    `${fixed(stores.databaseMiB)} | ${stores.rows.messages ?? '–'} | ` +
    `${stores.redisKeys} / ${stores.redisKeysWithoutTtl} | ${fixed(stores.redisMiB, 1)} | ${stores.routineThreads} |`
  );
}

const cleanups: Cleanup[] = [];

async function measure(): Promise<void> {
  writeFileSync(OUT, '');
  const postgres = await PrivatePostgres.start({ statements: false });
  cleanups.push(() => postgres.dispose());
  const redisServer = await PrivateRedis.start();
  cleanups.push(() => redisServer.dispose());
  const environment = await createBenchEnvironment(
    { LOG_LEVEL: 'info' },
    { databaseUrl: postgres.url, redisUrl: redisServer.url },
  );
  cleanups.push(() => environment.dispose());
  const { key } = await environment.admin(['keys:create', '--org', 'soak']);
  const { id: agentId } = await environment.admin(['agents:create', '--org', 'soak', '--name', 'soak']);
  const { url, child: gateway } = await environment.startGateway();
  const workerHealthPort = await freePort();
  const worker = await environment.startWorker({ WORKER_HEALTH_PORT: String(workerHealthPort) });
  const target = { url, key, agentId };

  const routine = await fetch(`${url}/routines`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': key },
    body: JSON.stringify({
      name: 'every minute',
      agent_id: agentId,
      user_id: 'soak-routine',
      schedule: '* * * * *',
      message: { content: '/tool clock {}\nThe minute report.' },
    }),
  });
  if (routine.status !== 200) throw new Error(`POST /routines: ${routine.status} ${await routine.text()}`);

  const database = new Client({ connectionString: environment.databaseUrl });
  await database.connect();
  cleanups.push(() => database.end());
  const redis = new Redis(redisServer.url);
  cleanups.push(async () => redis.disconnect());

  const started = Date.now();
  const until = started + MINUTES * 60_000;
  const interval = new Interval();
  const clients = Promise.all(
    Array.from({ length: CLIENTS }, (_, i) => client(target, `soak-${i}`, until, interval)),
  );
  const samples: Sample[] = [];
  const header =
    '| minute | conversations | errors | latency p50 / p99 ms | first delta p99 ms | RSS MiB gateway / worker | ' +
    'heap used MiB gateway / worker | event-loop lag p99 ms gateway / worker (max) | database MiB | messages | ' +
    'Redis keys / without TTL | Redis MiB | routine threads |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|';
  process.stdout.write(`${header}\n`);
  let reported = 0;
  while (Date.now() < until) {
    await sleep(Math.min(SAMPLE_SECONDS * 1000, until - Date.now()));
    const { done, errors } = interval.take();
    const [gatewayMetrics, workerMetrics] = await Promise.all([
      processMetrics(`${url}/metrics`),
      processMetrics(`http://127.0.0.1:${workerHealthPort}/metrics`),
    ]);
    const minute = (Date.now() - started) / 60_000;
    const reporting =
      samples.length === 0 ||
      minute - (samples[reported - 1]?.minute ?? 0) >= REPORT_MINUTES - 0.01 ||
      Date.now() >= until;
    const totals = done.map((d) => d.totalMs);
    const firstDeltas = done.map((d) => d.firstDeltaMs);
    const sample: Sample = {
      minute,
      conversations: done.length,
      errors: errors.length,
      totalP50Ms: totals.length ? median(totals) : 0,
      totalP99Ms: totals.length ? percentile(totals, 99) : 0,
      firstDeltaP99Ms: firstDeltas.length ? percentile(firstDeltas, 99) : 0,
      gatewayRssMiB: rssMiB(gateway.pid!),
      workerRssMiB: rssMiB(worker.pid!),
      gatewayHeapMiB: gatewayMetrics.heapUsedMiB,
      workerHeapMiB: workerMetrics.heapUsedMiB,
      gatewayLagP99Ms: gatewayMetrics.loopLagP99Ms,
      workerLagP99Ms: workerMetrics.loopLagP99Ms,
      stores: reporting ? await storeFigures(database, redis) : undefined,
    };
    samples.push(sample);
    appendFileSync(OUT, `${JSON.stringify({ ...sample, errorMessages: errors.slice(0, 5) })}\n`);
    // The first sample only gives the stores' starting point.
    if (reporting && samples.length > 1) {
      process.stdout.write(`${row(samples.slice(reported))}\n`);
      reported = samples.length;
    }
  }
  await clients;

  const [first, last] = [samples[0], samples[samples.length - 1]];
  const [before, after] = [first.stores!, last.stores!];
  const total = samples.reduce((n, s) => n + s.conversations, 0);
  const errors = samples.reduce((n, s) => n + s.errors, 0);
  process.stdout.write(
    `\n${total} conversations in ${MINUTES} min, ${errors} errors; ${after.routineThreads} routine threads.\n` +
      `first sample → last: RSS gateway ${fixed(first.gatewayRssMiB)} → ${fixed(last.gatewayRssMiB)} MiB, ` +
      `worker ${fixed(first.workerRssMiB)} → ${fixed(last.workerRssMiB)}; heap used gateway ` +
      `${fixed(first.gatewayHeapMiB)} → ${fixed(last.gatewayHeapMiB)}, worker ${fixed(first.workerHeapMiB)} → ` +
      `${fixed(last.workerHeapMiB)}; Redis keys without TTL ${before.redisKeysWithoutTtl} → ` +
      `${after.redisKeysWithoutTtl} (${JSON.stringify(before.redisKeysWithoutTtlByShape)} → ` +
      `${JSON.stringify(after.redisKeysWithoutTtlByShape)}); rows ${JSON.stringify(before.rows)} → ` +
      `${JSON.stringify(after.rows)}\nsamples: ${OUT}\n`,
  );
}

runBenchmark(cleanups, measure);
