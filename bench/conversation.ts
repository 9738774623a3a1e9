/**
 * Whole conversations, as BENCHMARKS.md defines one: POST /chat with `/say` and 22 words, then
 * GET /chat/messages/{id}/stream read until message.completed and the response closes. One gateway and one
 * worker with the builtin model, with the settings `npm start` uses (info logs, default concurrency), on a
 * PostgreSQL cluster and a redis-server of the benchmark's own; 1, 8 and 32 concurrent clients. Records
 * conversations/s, conversation and first-delta latency, POST /chat latency while the worker is busy, and the CPU
 * milliseconds per conversation of each component (gateway, worker, PostgreSQL, Redis, and this load generator)
 * from /proc/<pid>/stat. Beside each client count it runs the peer of ../shared/peer at the same client count
 * and reports the ratio: on this shared machine only figures of the same minutes compare.
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/conversation.js
 *
 * Environment: BENCH_CONVERSATIONS (per run, default 20 × clients, at least 100), BENCH_RUNS (3),
 * BENCH_CLIENT_COUNTS (default 1,8,32); BENCH_PEER=0 skips the peer, BENCH_PEER_DIR (default ../shared/peer
 * from the working directory), BENCH_PEER_SECONDS (time cap of each of its runs, default 20); BENCH_STATS=1
 * preloads pg_stat_statements and prints statements and Redis commands per conversation over the runs of the last
 * client count; BENCH_APP_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) go to gateway and worker.
 * BENCH_ORGS (default 1, as BENCHMARKS.md has it) spreads the clients over that many organizations: a run's start
 * takes a lock per organization, and this shows what that serialization costs.
 * Settings of the apps pass through (support's PASSED_SETTINGS: LOG_LEVEL, STREAM_HOLD_MS, HEAP_GROWTH_PERCENT, …).
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Peer, PeerResult } from './peer';
import { Conversation, converse, Target } from './conversation-client';
import { startPrivateStores } from './private-stores';
import { childrenCpuMs, treeCpuMs } from './proc-cpu';
import { StoreStats } from './store-stats';
import {
  Cleanup,
  createBenchEnvironment,
  median,
  percentile,
  runBenchmark,
  passedSettings,
  benchNumbers,
} from './support';

const { RUNS, PEER_SECONDS, ORGS } = benchNumbers({ RUNS: 3, PEER_SECONDS: 20, ORGS: 1 });
const CLIENT_COUNTS = (process.env.BENCH_CLIENT_COUNTS ?? '1,8,32').split(',').map(Number);
const PEER_DIR = process.env.BENCH_PEER !== '0' && resolve(process.env.BENCH_PEER_DIR ?? '../shared/peer');
const STATS = process.env.BENCH_STATS === '1';
const WORDS =
  'the quick brown fox jumps over the lazy dog while seven clever ravens watch from an old oak tree near the quiet river bank';
const CONTENT = `/say ${WORDS.split(' ').slice(0, 22).join(' ')}`;

/** CPU milliseconds so far of each component; two readings' difference is what a round cost. */
interface CpuReading {
  gateway: number;
  worker: number;
  /** The whole private cluster: backends, checkpointer, WAL writer, background writer, autovacuum. */
  postgres: number;
  /** The part of `postgres` spent in the live backends of the benchmark's database (the apps' pools). */
  postgresBackends: number;
  redis: number;
  /** This process: the load generator (and the draining of the apps' logs). */
  client: number;
}

const COMPONENTS: (keyof CpuReading)[] = [
  'gateway',
  'worker',
  'postgres',
  'postgresBackends',
  'redis',
  'client',
];

interface Pids {
  gateway: number;
  worker: number;
  postmaster: number;
  redis: number;
  database: string;
}

function readCpu(pids: Pids): CpuReading {
  const usage = process.cpuUsage();
  return {
    gateway: treeCpuMs(pids.gateway),
    worker: treeCpuMs(pids.worker),
    postgres: treeCpuMs(pids.postmaster),
    // A backend's command line: `postgres: user database host(port) state`.
    postgresBackends: childrenCpuMs(pids.postmaster, ` ${pids.database} `),
    redis: treeCpuMs(pids.redis),
    client: (usage.user + usage.system) / 1000,
  };
}

interface Round {
  perSecond: number;
  results: Conversation[];
  cpuPerConversation: CpuReading;
}

/** Client i speaks for organization i mod targets.length (BENCH_ORGS). */
async function round(clients: number, count: number, targets: Target[], pids: Pids): Promise<Round> {
  const results: Conversation[] = [];
  let next = 0;
  const cpuBefore = readCpu(pids);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      const target = targets[client % targets.length];
      while (next++ < count) results.push(await converse(target, CONTENT));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = readCpu(pids);
  const cpuPerConversation = Object.fromEntries(
    COMPONENTS.map((component) => [component, (cpuAfter[component] - cpuBefore[component]) / results.length]),
  ) as unknown as CpuReading;
  return { perSecond: results.length / seconds, results, cpuPerConversation };
}

const ms = (value: number) => value.toFixed(1);
const p50p99 = (values: number[]) => `${ms(median(values))} / ${ms(percentile(values, 99))}`;
/** The 1-minute load average, noted beside each figure: the machine is shared. */
const load = () => loadavg()[0].toFixed(2);

/** One table row of our figures: throughput median of the runs, latencies of the median run, CPU medians. */
function ourRow(clients: number, loadBefore: string, runs: Round[]): string {
  const rates = runs.map((r) => r.perSecond);
  // Latencies of the median run by throughput: one run's figures, not a blend of several.
  const middle = runs[rates.indexOf(median(rates))].results;
  const cpu = (component: keyof CpuReading) => median(runs.map((r) => r.cpuPerConversation[component]));
  const total = cpu('gateway') + cpu('worker') + cpu('postgres') + cpu('redis');
  return (
    `| ${clients} | ${loadBefore} → ${load()} | ${median(rates).toFixed(1)} (runs: ${rates.map((r) => r.toFixed(1)).join(', ')}) | ` +
    `${p50p99(middle.map((c) => c.totalMs))} | ${p50p99(middle.map((c) => c.firstDeltaMs))} | ` +
    `${p50p99(middle.map((c) => c.postMs))} | ${ms(total)} = ${ms(cpu('gateway'))} + ${ms(cpu('worker'))} + ` +
    `${ms(cpu('postgres'))} (${ms(cpu('postgresBackends'))}) + ${ms(cpu('redis'))} | ${ms(cpu('client'))} |`
  );
}

function peerRow(clients: number, loadBefore: string, ours: Round[], peer: PeerResult): string {
  const { summary } = peer;
  const rate = median(ours.map((r) => r.perSecond));
  const middle = ours[ours.map((r) => r.perSecond).indexOf(rate)].results;
  const firstDelta = median(middle.map((c) => c.firstDeltaMs));
  return (
    `| ${clients} | ${loadBefore} → ${load()} | ${summary.conv_per_s.median.toFixed(1)} | ${summary.errors} | ` +
    `${ms(summary.total_p50_ms.median)} | ${ms(summary.ttft_p50_ms.median)} / ${ms(summary.ttft_p99_ms.median)} | ` +
    `${ms(peer.cpuMsPerConversation)} | **${(rate / summary.conv_per_s.median).toFixed(2)}×** | ` +
    `${(firstDelta / summary.ttft_p50_ms.median).toFixed(2)} |`
  );
}

/** What the run has started, to stop on the way out, latest first: also after a failure or a Ctrl-C. */
const cleanups: Cleanup[] = [];

async function measure(): Promise<void> {
  const { postgres, redis } = await startPrivateStores(cleanups, STATS);
  const peer = PEER_DIR ? await Peer.start(PEER_DIR) : undefined;
  if (peer) cleanups.push(() => peer.dispose());
  // `npm start` logs at info in both apps (the settings' default); support's default for other benches is warn.
  const environment = await createBenchEnvironment(
    { LOG_LEVEL: 'info', ...passedSettings() },
    { databaseUrl: postgres.url, redisUrl: redis.url },
  );
  cleanups.push(() => environment.dispose());
  const stats = STATS ? await StoreStats.connect(postgres.url, redis.url, environment.name) : undefined;
  if (stats) cleanups.push(() => stats.close());
  const credentials: { key: string; agentId: string }[] = [];
  for (let org = 0; org < ORGS; org++) {
    const name = org === 0 ? 'bench' : `bench-${org}`;
    const { key } = await environment.admin(['keys:create', '--org', name]);
    const { id: agentId } = await environment.admin(['agents:create', '--org', name, '--name', 'bench']);
    credentials.push({ key, agentId });
  }
  const { url, child: gateway } = await environment.startGateway();
  const worker = await environment.startWorker();
  const targets: Target[] = credentials.map((credential) => ({ url, ...credential }));
  const pids: Pids = {
    gateway: gateway.pid ?? 0,
    worker: worker.pid ?? 0,
    postmaster: postgres.pid,
    redis: redis.pid,
    database: environment.name,
  };
  await round(8, 100, targets, pids); // warm up: JIT, connection pools, prepared plans

  const ours = [
    '| clients | load avg (before → after) | conversations/s | conversation p50 / p99 ms | first delta p50 / p99 ms | ' +
      'POST /chat p50 / p99 ms | CPU ms per conversation: all = gateway + worker + PostgreSQL (its backends) + Redis | ' +
      'load generator CPU ms |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const peers = [
    '| clients | load avg (before → after) | peer conversations/s | peer failed | peer conversation p50 ms | ' +
      'peer first token p50 / p99 ms | peer CPU ms per conversation | ours / peer conversations/s | ' +
      'our first delta p50 / peer first token p50 |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  let statsReport = '';
  for (const clients of CLIENT_COUNTS) {
    const count = Number(process.env.BENCH_CONVERSATIONS ?? Math.max(100, 20 * clients));
    const statsHere = stats && clients === CLIENT_COUNTS[CLIENT_COUNTS.length - 1];
    if (statsHere) await stats.reset();
    const loadBefore = load();
    const runs: Round[] = [];
    for (let index = 0; index < RUNS; index++) runs.push(await round(clients, count, targets, pids));
    if (statsHere) statsReport = await stats.report(count * RUNS);
    ours.push(ourRow(clients, loadBefore, runs));
    process.stdout.write(`${ours[ours.length - 1]}\n`);
    if (peer) {
      const peerLoadBefore = load();
      peers.push(
        peerRow(clients, peerLoadBefore, runs, await peer.runLoad(clients, count, RUNS, PEER_SECONDS)),
      );
      process.stdout.write(`${peers[peers.length - 1]}\n`);
    }
  }
  process.stdout.write(`\n${ours.join('\n')}\n`);
  if (peer) process.stdout.write(`\n${peers.join('\n')}\n`);
  if (stats) process.stdout.write(`\n${statsReport}\n`);
}

runBenchmark(cleanups, measure);
