/**
 * The floor of issue 45's CPU targets: the conversation workload of bench/paced.ts and bench/conversation.ts served
 * by a minimal service built from the same building blocks (Fastify, pg, ioredis, BullMQ) and no Parley code
 * (bench/floor/service.ts), as two processes like ours, on a private PostgreSQL cluster (fsync on) and redis-server
 * (bench/private-stores.ts). What it costs is what any service on these blocks pays, whatever its own code.
 *
 *   PARLEY_DIST=/tmp/dist-h74 npm run build
 *   NODE_PATH=$PWD/node_modules node /tmp/dist-h74/bench/floor.js --rate 113             # open loop, paced
 *   BENCH_SLEEP_MS=0 BENCH_WORDS=22 NODE_PATH=$PWD/node_modules node /tmp/dist-h74/bench/floor.js --clients 32
 *
 * `--rate R`: conversations start as a Poisson process at R per second for BENCH_SECONDS (20), each timed from its
 * scheduled start (as paced.ts's open loop). `--clients C`: C clients in a closed loop, BENCH_CONVERSATIONS (20 × C)
 * per run (as conversation.ts). Each conversation is bench/conversation-client's: POST /chat with `/sleep
 * BENCH_SLEEP_MS` (40) and a BENCH_WORDS-word (100) `/say`, the stream read to `message.completed` and its text
 * checked. BENCH_RUNS (3) runs after a warm-up, each between two `../shared/bench-calibrate.mjs` (run from the
 * worktree); per run and as medians: completed/s, failed, first delta p50/p99, CPU ms per completed conversation of
 * gateway, worker, PostgreSQL, Redis and (apart) this load generator. FLOOR_LINES=word makes each word a line of
 * its own, published before it is stored; by default a run's words are stored, then published, joined per journal
 * write, as Parley does (bench/floor/service.ts).
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { Conversation, converse, Target } from './conversation-client';
import { startPrivateStores } from './private-stores';
import {
  busyShare,
  ComponentPids,
  ComponentsCpu,
  componentsCpuMs,
  CPU_COMPONENTS,
  machineCpuTicks,
} from './proc-cpu';
import {
  benchNumbers,
  Cleanup,
  freePort,
  interArrivalMs,
  median,
  percentile,
  runBenchmark,
  sleep,
  withTimeout,
} from './support';

const { WORDS, SLEEP_MS, RUNS, SECONDS } = benchNumbers({ WORDS: 100, SLEEP_MS: 40, RUNS: 3, SECONDS: 20 });
const flag = (name: string) => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? Number(process.argv[index + 1]) : 0;
};
const RATE = flag('--rate');
const CLIENTS = flag('--clients');
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 20 * CLIENTS);
/** A conversation not done by then counts as failed, as in paced.ts. */
const CONVERSATION_TIMEOUT_MS = 60_000;

const EXPECTED = Array.from({ length: WORDS }, (_, i) => `word${i}`).join(' ');
const CONTENT = `/sleep ${SLEEP_MS}\n/say ${EXPECTED}`;

const SCHEMA = `
  CREATE TABLE threads (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), created_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE messages (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    thread_id uuid NOT NULL REFERENCES threads (id),
    role text NOT NULL,
    content text NOT NULL,
    status text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
  );
  CREATE INDEX messages_thread ON messages (thread_id, created_at);
  CREATE TABLE journal (message_id uuid NOT NULL, seq int NOT NULL, line text NOT NULL, PRIMARY KEY (message_id, seq));
`;

interface RunResult {
  completed: Conversation[];
  failed: number;
  seconds: number;
  cpuPerCompleted: ComponentsCpu;
  machineBusy: number;
  calibration: string;
}

/** The fixed Node workload timed in CPU ms: how fast this machine is right now. */
function calibrate(): string {
  const printed = execFileSync('node', [resolve('../shared/bench-calibrate.mjs')], { encoding: 'utf8' });
  return String((JSON.parse(printed) as { calibration_cpu_ms: number }).calibration_cpu_ms);
}

/** paced.ts's open loop: arrivals drawn ahead, each conversation timed from when it was due. */
async function openLoop(target: Target, record: (conversation: Promise<Conversation>) => Promise<void>) {
  const start = performance.now();
  const conversations: Promise<void>[] = [];
  for (let due = interArrivalMs(RATE); due < SECONDS * 1000; due += interArrivalMs(RATE)) {
    const wait = start + due - performance.now();
    if (wait > 1) await sleep(wait);
    conversations.push(record(converse(target, CONTENT, EXPECTED, start + due)));
  }
  await Promise.all(conversations);
}

/** conversation.ts's closed loop: each client starts its next conversation when its last one ends. */
async function closedLoop(target: Target, record: (conversation: Promise<Conversation>) => Promise<void>) {
  let started = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (started++ < CONVERSATIONS) await record(converse(target, CONTENT, EXPECTED));
    }),
  );
}

async function measuredRun(target: Target, pids: ComponentPids): Promise<RunResult> {
  const calibrationBefore = calibrate();
  const completed: Conversation[] = [];
  let failed = 0;
  const record = (conversation: Promise<Conversation>) =>
    withTimeout(conversation, CONVERSATION_TIMEOUT_MS).then(
      (done) => void completed.push(done),
      (error: Error) => {
        if (failed++ === 0) process.stderr.write(`first failure: ${error.message}\n`);
      },
    );
  const cpuBefore = componentsCpuMs(pids);
  const machineBefore = machineCpuTicks();
  const started = performance.now();
  await (RATE > 0 ? openLoop(target, record) : closedLoop(target, record));
  const seconds = RATE > 0 ? SECONDS : (performance.now() - started) / 1000;
  const cpuAfter = componentsCpuMs(pids);
  const machineBusy = busyShare(machineBefore, machineCpuTicks());
  const cpuPerCompleted = Object.fromEntries(
    CPU_COMPONENTS.map((c) => [c, (cpuAfter[c] - cpuBefore[c]) / Math.max(1, completed.length)]),
  ) as ComponentsCpu;
  return {
    completed,
    failed,
    seconds,
    cpuPerCompleted,
    machineBusy,
    calibration: `${calibrationBefore}, ${calibrate()}`,
  };
}

const ms = (value: number) => value.toFixed(0);
const firstDelta = (run: RunResult) => run.completed.map((c) => c.firstDeltaMs);
const serviceCpu = (cpu: ComponentsCpu) => cpu.gateway + cpu.worker + cpu.postgres + cpu.redis;
const cpuCell = (cpu: ComponentsCpu) =>
  `${serviceCpu(cpu).toFixed(2)} = ${cpu.gateway.toFixed(2)} + ${cpu.worker.toFixed(2)} + ` +
  `${cpu.postgres.toFixed(2)} + ${cpu.redis.toFixed(2)}`;

const HEADER =
  '| run | calibration ms before, after | completed/s | failed | first delta p50 / p99 ms | ' +
  'CPU ms per completed conversation: all = gateway + worker + PostgreSQL + Redis | load generator CPU ms | ' +
  'machine CPU busy |\n|---|---|---|---|---|---|---|---|';

function row(label: string, run: RunResult): string {
  const deltas = firstDelta(run);
  return (
    `| ${label} | ${run.calibration} | ${(run.completed.length / run.seconds).toFixed(1)} | ${run.failed} | ` +
    `${ms(median(deltas))} / ${ms(percentile(deltas, 99))} | ${cpuCell(run.cpuPerCompleted)} | ` +
    `${run.cpuPerCompleted.client.toFixed(2)} | ${(run.machineBusy * 100).toFixed(0)} % |`
  );
}

/** Each figure's median over the runs (so the components need not add up to the median total exactly). */
function medianRow(runs: RunResult[]): string {
  const of = (value: (run: RunResult) => number) => median(runs.map(value));
  const cpu = Object.fromEntries(
    CPU_COMPONENTS.map((c) => [c, of((r) => r.cpuPerCompleted[c])]),
  ) as ComponentsCpu;
  return (
    `| median | | ${of((r) => r.completed.length / r.seconds).toFixed(1)} | ${of((r) => r.failed)} | ` +
    `${ms(of((r) => median(firstDelta(r))))} / ${ms(of((r) => percentile(firstDelta(r), 99)))} | ` +
    `${cpuCell(cpu)} (total's median ${of((r) => serviceCpu(r.cpuPerCompleted)).toFixed(2)}) | ` +
    `${cpu.client.toFixed(2)} | ${(of((r) => r.machineBusy) * 100).toFixed(0)} % |`
  );
}

const cleanups: Cleanup[] = [];

/** One role of bench/floor/service.js, resolved once it prints `ready`. */
async function startRole(role: 'gateway' | 'worker', env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(__dirname, 'floor', 'service.js'), role], {
    env: {
      PATH: process.env.PATH,
      NODE_PATH: process.env.NODE_PATH,
      FLOOR_LINES: process.env.FLOOR_LINES,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  });
  await new Promise<void>((ready, failed) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) ready();
    });
    child.once('exit', () => failed(new Error(`${role} exited at start`)));
  });
  return child;
}

async function measure(): Promise<void> {
  if (RATE <= 0 && CLIENTS <= 0) throw new Error('give --rate R (open loop) or --clients C (closed loop)');
  const { postgres, redis } = await startPrivateStores(cleanups, false);
  const admin = new Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query('CREATE DATABASE floor');
  await admin.end();
  const databaseUrl = Object.assign(new URL(postgres.url), { pathname: '/floor' }).toString();
  const schema = new Client({ connectionString: databaseUrl });
  await schema.connect();
  await schema.query(SCHEMA);
  await schema.end();

  const env = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url };
  const port = await freePort();
  const gateway = await startRole('gateway', { ...env, PORT: String(port) });
  const worker = await startRole('worker', env);
  const pids = { gateway: gateway.pid!, worker: worker.pid!, postgres: postgres.pid, redis: redis.pid };
  const target = { url: `http://127.0.0.1:${port}`, key: 'floor', agentId: 'floor' };

  // Warm-up: JIT, pools, prepared statements. A closed loop's runs are short (a few seconds), and a first run
  // after 50 conversations only still cost 1.5 times the third: it warms up with a whole unmeasured run.
  await Promise.all(Array.from({ length: 50 }, () => converse(target, CONTENT, EXPECTED)));
  if (CLIENTS > 0) await closedLoop(target, (conversation) => conversation.then(() => undefined));
  const load = loadavg()[0].toFixed(2);
  const runs: RunResult[] = [];
  for (let index = 0; index < RUNS; index++) {
    runs.push(await measuredRun(target, pids));
    process.stdout.write(`${row(String(index + 1), runs[index])}\n`);
    await sleep(3000); // the next run starts on an idle service
  }
  const setting =
    RATE > 0 ? `open loop ${RATE}/s for ${SECONDS} s` : `${CLIENTS} clients, ${CONVERSATIONS} each run`;
  process.stdout.write(
    `\n${setting}, ${WORDS} words at ${SLEEP_MS} ms; load average ${load} → ${loadavg()[0].toFixed(2)}\n` +
      `${HEADER}\n${runs.map((run, index) => row(String(index + 1), run)).join('\n')}\n${medianRow(runs)}\n`,
  );
}

runBenchmark(cleanups, measure);
