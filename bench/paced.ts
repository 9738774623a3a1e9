/**
 * The real workload (BENCHMARKS.md, "a real model's pace"): N clients of one organization, each in a loop
 * `POST /chat` with `/sleep MS` and an M-word `/say`, then the reply stream read to `message.completed` and its
 * text checked. Meanwhile a second organization sends one-word replies, one after the other, and each is timed.
 * One gateway and one worker as `npm start` runs them (default settings, info logs), on a PostgreSQL cluster and
 * a redis-server of the benchmark's own; the peer of ../shared/peer on the same workload right after, in the
 * same minutes (its fake model at the same pace, `nWorkers` = N, as its README says).
 *
 * Reports, medians of the runs: conversations/s against the ideal N / (M × MS), first delta and POST /chat
 * p50/p99, streamed tokens/s, CPU ms per conversation and per 1,000 tokens by component, the highest RSS of the
 * gateway and the worker (together), the other organization's slowest conversation, and how busy the machine's cores
 * were (all processes and the kernel: past ~95 % every latency is queueing for CPU).
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/paced.js
 *
 * The open loop, the workload of record (`--rate R` or BENCH_RATE=R): conversations start as a Poisson process at
 * R per second for BENCH_SECONDS (30), whatever the service's speed: each is due at its scheduled time and timed
 * from it (no coordinated omission: a late start counts against the service). Reports completed/s against
 * offered, first delta and POST p50/p99 from the scheduled start, refused (503, admission control) apart from
 * failed, live replies (conversations under way, median and max), CPU per completed conversation and per 1,000
 * tokens by component, RSS; `node ../shared/bench-calibrate.mjs` before and after. The in-step workload (without
 * `--rate`) stays as it was, beside the peer.
 *
 * Environment: BENCH_CLIENTS (500), BENCH_WORDS (100), BENCH_SLEEP_MS (40), BENCH_ROUNDS_PER_CLIENT (2:
 * conversations per client per run; at least 3 for spread arrivals), BENCH_ARRIVALS (`together` or `spread`, see
 * ARRIVALS), BENCH_RUNS (3); BENCH_PEER=0 skips the peer, BENCH_PEER_DIR (default
 * ../shared/peer from the working directory); BENCH_STATS=1 preloads pg_stat_statements and prints statements and
 * Redis commands per conversation; BENCH_APP_NODE_ARGS go to gateway and worker (e.g. `--cpu-prof`). Settings of
 * the apps pass through (support's PASSED_SETTINGS: LOG_LEVEL, STREAM_HOLD_MS, HEAP_GROWTH_PERCENT, …).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Peer, PeerResult } from './peer';
import { Conversation, converse, RefusedError, Target } from './conversation-client';
import { startPrivateStores } from './private-stores';
import {
  busyShare,
  ComponentPids,
  ComponentsCpu,
  componentsCpuMs,
  CPU_COMPONENTS,
  machineCpuTicks,
} from './proc-cpu';
import { StoreStats } from './store-stats';
import {
  Cleanup,
  createBenchEnvironment,
  median,
  percentile,
  runBenchmark,
  sleep,
  passedSettings,
  benchNumbers,
  interArrivalMs,
  withTimeout,
} from './support';

const {
  CLIENTS,
  WORDS,
  SLEEP_MS,
  ROUNDS_PER_CLIENT: PER_CLIENT,
  RUNS,
} = benchNumbers({ CLIENTS: 500, WORDS: 100, SLEEP_MS: 40, ROUNDS_PER_CLIENT: 2, RUNS: 3 });
const PEER_DIR = process.env.BENCH_PEER !== '0' && resolve(process.env.BENCH_PEER_DIR ?? '../shared/peer');
const STATS = process.env.BENCH_STATS === '1';
const rateFlag = process.argv.indexOf('--rate');
/** Conversations started per second in the open loop; unset: the in-step (closed-loop) workload. */
const RATE = Number(rateFlag >= 0 ? process.argv[rateFlag + 1] : (process.env.BENCH_RATE ?? 0));
/** How long the open loop offers conversations, per run. */
const OPEN_SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
/** A conversation not done by then counts as failed (timed out). */
const CONVERSATION_TIMEOUT_MS = 60_000;
/**
 * `together` (default): every client sends at the same instant, and since every reply then takes the same time
 * they stay in step: each wave's POSTs, stream opens and run starts arrive as one burst. `spread`: client i sends
 * its first message i/N of a reply's time after the first client, as users who do not coordinate would; rates
 * and latencies are then of the steady state only (every client's conversations but its first and last).
 */
const ARRIVALS = process.env.BENCH_ARRIVALS === 'spread' ? 'spread' : 'together';
if (ARRIVALS === 'spread' && PER_CLIENT < 3)
  throw new Error(
    'BENCH_ARRIVALS=spread needs BENCH_ROUNDS_PER_CLIENT of at least 3 (a steady conversation each)',
  );

/** The peer's fake model says `word0 … wordN-1`; ours is told to say the same. */
const EXPECTED = Array.from({ length: WORDS }, (_, i) => `word${i}`).join(' ');
const CONTENT = `/sleep ${SLEEP_MS}\n/say ${EXPECTED}`;
/** What a conversation ideally takes: the model's pace alone (the first word comes at once). */
const IDEAL_SECONDS = ((WORDS - 1) * SLEEP_MS) / 1000;

/** Resident set size of a process in MiB (0 once it is gone). */
function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** What a round measures besides its conversations, taken once its load is over. */
interface Measured {
  cpuPerConversation: ComponentsCpu;
  /** Highest gateway + worker RSS sampled during the round. */
  rssMiB: number;
  /** The other organization's conversations during the round, ms. */
  other: number[];
  /** The share of the machine's cores busy during the round (every process, the kernel's work included). */
  machineBusy: number;
}

/**
 * Starts measuring a round: the gateway + worker RSS sampled every 250 ms (with `onSample`), the other
 * organization's `otherConversation`s back to back, CPU per component and the machine's busy share from now.
 * `finish` stops it all and divides the CPU among the round's `conversations`.
 */
function startMeasuring(pids: ComponentPids, otherConversation: () => Promise<unknown>, onSample = () => {}) {
  const otherMs: number[] = [];
  let done = false;
  let rss = 0;
  const sampler = setInterval(() => {
    rss = Math.max(rss, rssMiB(pids.gateway) + rssMiB(pids.worker));
    onSample();
  }, 250);
  const otherLoop = (async () => {
    while (!done) {
      const started = performance.now();
      await otherConversation();
      otherMs.push(performance.now() - started);
      await sleep(200);
    }
  })();
  const cpuBefore = componentsCpuMs(pids);
  const machineBefore = machineCpuTicks();
  return async (conversations: number): Promise<Measured> => {
    const cpuAfter = componentsCpuMs(pids);
    const machineBusy = busyShare(machineBefore, machineCpuTicks());
    done = true;
    await otherLoop;
    clearInterval(sampler);
    const cpuPerConversation = Object.fromEntries(
      CPU_COMPONENTS.map((c) => [c, (cpuAfter[c] - cpuBefore[c]) / conversations]),
    ) as ComponentsCpu;
    return { cpuPerConversation, rssMiB: rss, other: otherMs, machineBusy };
  };
}

interface Round extends Measured {
  perSecond: number;
  results: Conversation[];
  /** Conversations admission control refused (503). */
  refused: number;
}

async function round(main: Target, other: Target, pids: ComponentPids, clients: number, perClient: number) {
  const results: Conversation[] = [];
  let refused = 0;
  // The other organization: one-word replies back to back while the load runs (one refused is not timed).
  const finish = startMeasuring(pids, () => converse(other, '/say ok', 'ok').catch(() => undefined));
  const started = performance.now();
  // The warm-up (one conversation each) always arrives together.
  const spread = ARRIVALS === 'spread' && perClient >= 3;
  const steady: Conversation[] = [];
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      if (spread) await sleep((client / clients) * IDEAL_SECONDS * 1000);
      for (let i = 0; i < perClient; i++) {
        // Refused by admission control (503): counted, and the client goes on with its next conversation.
        const conversation = await converse(main, CONTENT, EXPECTED).catch((error: unknown) => {
          if (error instanceof RefusedError) return void refused++;
          throw error;
        });
        if (!conversation) continue;
        results.push(conversation);
        if (i > 0 && i < perClient - 1) steady.push(conversation);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const measured = await finish(results.length);
  return {
    // Spread: each client always has one conversation under way, so N of them finish one per mean duration
    // (Little's law), without the ramp at the start and the tail at the end.
    perSecond: spread
      ? clients / (steady.reduce((sum, c) => sum + c.totalMs, 0) / steady.length / 1000)
      : results.length / seconds,
    results: spread ? steady : results,
    refused,
    ...measured,
  };
}

interface OpenRound extends Measured {
  offered: number;
  completed: Conversation[];
  refused: number;
  failed: number;
  /** Completed conversations per second of the offering window. */
  completedPerSecond: number;
  /** Arrivals per second actually scheduled (the Poisson draw). */
  offeredPerSecond: number;
  live: number[];
  /** How late the generator started conversations after their scheduled time, p99 ms (its own lag). */
  startLagP99: number;
}

async function openRound(main: Target, other: Target, pids: ComponentPids, rate: number, seconds: number) {
  const completed: Conversation[] = [];
  const live: number[] = [];
  const lags: number[] = [];
  let refused = 0;
  let failed = 0;
  let underWay = 0;
  const finish = startMeasuring(
    pids,
    () => converse(other, '/say ok', 'ok').catch(() => undefined),
    () => live.push(underWay),
  );
  const start = performance.now();
  const conversations: Promise<void>[] = [];
  // Each arrival's time is drawn ahead; the generator sleeps until it, and a late wake-up still times the
  // conversation from when it was due.
  for (let due = interArrivalMs(rate); due < seconds * 1000; due += interArrivalMs(rate)) {
    const wait = start + due - performance.now();
    if (wait > 1) await sleep(wait);
    const scheduled = start + due;
    lags.push(performance.now() - scheduled);
    underWay++;
    conversations.push(
      withTimeout(converse(main, CONTENT, EXPECTED, scheduled), CONVERSATION_TIMEOUT_MS)
        .then(
          (conversation) => void completed.push(conversation),
          (error: unknown) => {
            if (error instanceof RefusedError) refused++;
            else failed++;
          },
        )
        .finally(() => underWay--),
    );
  }
  const offered = conversations.length;
  await Promise.all(conversations);
  const measured = await finish(Math.max(1, completed.length));
  return {
    offered,
    completed,
    refused,
    failed,
    completedPerSecond: completed.length / seconds,
    offeredPerSecond: offered / seconds,
    live,
    ...measured,
    startLagP99: percentile(lags, 99),
  };
}

const OPEN_HEADER =
  '| load avg | offered/s (drawn) | completed/s (runs) | completed / offered | refused (503) | failed | ' +
  'first delta p50 / p99 ms (from scheduled start) | POST /chat p50 / p99 ms | live replies median / max | ' +
  'CPU ms per completed conversation: all = gateway + worker + PostgreSQL + Redis | CPU ms per 1,000 tokens | ' +
  'gateway + worker RSS MiB (max) | other organization: slowest one-word conversation ms (count) | ' +
  'machine CPU busy | generator start lag p99 ms |\n' +
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|';

function openRow(loadBefore: string, runs: OpenRound[]): string {
  const rates = runs.map((r) => r.completedPerSecond);
  const middle = runs[rates.indexOf(median(rates))];
  const cpu = (c: keyof ComponentsCpu) => median(runs.map((r) => r.cpuPerConversation[c]));
  const total = cpu('gateway') + cpu('worker') + cpu('postgres') + cpu('redis');
  const served = middle.completed;
  const p = (values: number[]) => (values.length ? p50p99(values) : '–');
  return (
    `| ${loadBefore} → ${load()} | ${RATE} (${runs.map((r) => r.offeredPerSecond.toFixed(1)).join(', ')}) | ` +
    `${median(rates).toFixed(1)} (${rates.map((r) => r.toFixed(1)).join(', ')}) | ` +
    `${runs.map((r) => `${((r.completed.length / r.offered) * 100).toFixed(0)} %`).join(', ')} | ` +
    `${runs.map((r) => r.refused).join(', ')} | ${runs.map((r) => r.failed).join(', ')} | ` +
    `${p(served.map((c) => c.firstDeltaMs))} | ${p(served.map((c) => c.postMs))} | ` +
    `${median(middle.live)} / ${Math.max(...middle.live)} | ` +
    `${total.toFixed(1)} = ${cpu('gateway').toFixed(1)} + ${cpu('worker').toFixed(1)} + ` +
    `${cpu('postgres').toFixed(1)} + ${cpu('redis').toFixed(1)} | ${((total * 1000) / WORDS).toFixed(1)} | ` +
    `${median(runs.map((r) => r.rssMiB)).toFixed(0)} | ` +
    `${ms(Math.max(...middle.other))} (${middle.other.length}) | ` +
    `${(median(runs.map((r) => r.machineBusy)) * 100).toFixed(0)} % | ${ms(middle.startLagP99)} |`
  );
}

/** The fixed Node workload timed in CPU ms (../shared/bench-calibrate.mjs): how fast this machine is right now. */
function calibrate(): string {
  try {
    return execFileSync('node', [resolve('../shared/bench-calibrate.mjs')], { encoding: 'utf8' }).trim();
  } catch {
    return 'unavailable';
  }
}

const ms = (value: number) => value.toFixed(0);
const p50p99 = (values: number[]) => `${ms(median(values))} / ${ms(percentile(values, 99))}`;
const load = () => loadavg()[0].toFixed(2);

function ourRow(loadBefore: string, runs: Round[]): string {
  const rates = runs.map((r) => r.perSecond);
  const middle = runs[rates.indexOf(median(rates))];
  const cpu = (c: keyof ComponentsCpu) => median(runs.map((r) => r.cpuPerConversation[c]));
  const total = cpu('gateway') + cpu('worker') + cpu('postgres') + cpu('redis');
  const ideal = CLIENTS / IDEAL_SECONDS;
  const per1000 = (value: number) => ((value * 1000) / WORDS).toFixed(1);
  return (
    `| ${loadBefore} → ${load()} | ${median(rates).toFixed(1)} (${rates.map((r) => r.toFixed(1)).join(', ')}) | ` +
    `${ideal.toFixed(0)} (${((median(rates) / ideal) * 100).toFixed(0)} %) | ${runs.map((r) => r.refused).join(', ')} | ` +
    `${p50p99(middle.results.map((c) => c.firstDeltaMs))} | ${p50p99(middle.results.map((c) => c.postMs))} | ` +
    `${(median(rates) * WORDS).toFixed(0)} | ${total.toFixed(1)} = ${cpu('gateway').toFixed(1)} + ` +
    `${cpu('worker').toFixed(1)} + ${cpu('postgres').toFixed(1)} + ${cpu('redis').toFixed(1)} | ${per1000(total)} | ` +
    `${cpu('client').toFixed(1)} | ${median(runs.map((r) => r.rssMiB)).toFixed(0)} | ` +
    `${ms(Math.max(...middle.other))} (${middle.other.length}) | ` +
    `${(median(runs.map((r) => r.machineBusy)) * 100).toFixed(0)} % |`
  );
}

function peerRow(loadBefore: string, ours: Round[], peer: PeerResult): string {
  const { summary } = peer;
  const rate = median(ours.map((r) => r.perSecond));
  return (
    `| ${loadBefore} → ${load()} | ${summary.conv_per_s.median.toFixed(1)} | ${summary.errors} | ` +
    `${ms(summary.total_p50_ms.median)} | ` +
    `${ms(summary.ttft_p50_ms.median)} / ${ms(summary.ttft_p99_ms.median)} | ` +
    `${peer.cpuMsPerConversation.toFixed(1)} | **${(rate / summary.conv_per_s.median).toFixed(2)}×** |`
  );
}

const cleanups: Cleanup[] = [];

async function measure(): Promise<void> {
  const { postgres, redis } = await startPrivateStores(cleanups, STATS);
  const environment = await createBenchEnvironment(
    { LOG_LEVEL: 'info', ...passedSettings() },
    { databaseUrl: postgres.url, redisUrl: redis.url },
  );
  const disposeEnvironment = () => environment.dispose();
  cleanups.push(disposeEnvironment);
  const credentials = [];
  for (const org of ['bench', 'other']) {
    const { key } = await environment.admin(['keys:create', '--org', org]);
    const { id: agentId } = await environment.admin(['agents:create', '--org', org, '--name', 'bench']);
    credentials.push({ key, agentId });
  }
  const stats = STATS ? await StoreStats.connect(postgres.url, redis.url, environment.name) : undefined;
  const { url, child: gateway } = await environment.startGateway();
  const worker = await environment.startWorker();
  const [main, other] = credentials.map((credential) => ({ url, ...credential }));
  const pids = { gateway: gateway.pid!, worker: worker.pid!, postgres: postgres.pid, redis: redis.pid };
  await round(main, other, pids, Math.min(50, CLIENTS), 1); // warm-up: JIT, pools, prepared plans

  if (stats) await stats.reset();
  const loadBefore = load();
  if (RATE > 0) {
    const calibrationBefore = calibrate();
    const openRuns: OpenRound[] = [];
    for (let index = 0; index < RUNS; index++) {
      openRuns.push(await openRound(main, other, pids, RATE, OPEN_SECONDS));
      const last = openRuns[index];
      process.stdout.write(
        `run ${index + 1}: offered ${last.offered}, completed ${last.completed.length}, ` +
          `refused ${last.refused}, failed ${last.failed}\n`,
      );
      // The next run starts on an idle service: what this one admitted has ended.
      await sleep(3000);
    }
    process.stdout.write(
      `\nopen loop: ${RATE}/s for ${OPEN_SECONDS} s per run; calibration before ${calibrationBefore}, ` +
        `after ${calibrate()}\n${OPEN_HEADER}\n${openRow(loadBefore, openRuns)}\n`,
    );
    await stats?.close();
    return;
  }
  const calibrationBefore = calibrate();
  const runs: Round[] = [];
  for (let index = 0; index < RUNS; index++) {
    runs.push(await round(main, other, pids, CLIENTS, PER_CLIENT));
    process.stdout.write(
      `run ${index + 1}: ${runs[index].perSecond.toFixed(1)}/s, refused ${runs[index].refused}\n`,
    );
  }
  const header =
    '| load avg | conversations/s (runs) | ideal (reached) | refused (503) | first delta p50 / p99 ms | ' +
    'POST /chat p50 / p99 ms | streamed tokens/s | CPU ms per conversation: all = gateway + worker + PostgreSQL + Redis | ' +
    'CPU ms per 1,000 tokens | load generator CPU ms | gateway + worker RSS MiB (max) | ' +
    'other organization: slowest one-word conversation ms (count) | machine CPU busy (all cores) |\n' +
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|';
  process.stdout.write(
    `\narrivals: ${ARRIVALS}; calibration before ${calibrationBefore}, after ${calibrate()}\n` +
      `${header}\n${ourRow(loadBefore, runs)}\n`,
  );
  if (stats)
    process.stdout.write(`\n${await stats.report(runs.reduce((n, r) => n + r.results.length, 0))}\n`);
  // Ours is stopped before the peer runs, so neither competes with the other's idle work.
  await stats?.close();
  await environment.dispose();
  cleanups.splice(cleanups.indexOf(disposeEnvironment), 1);

  if (PEER_DIR) {
    const peer = await Peer.start(PEER_DIR, {
      config: { nWorkers: CLIENTS },
      env: { FAKE_TOKEN_DELAY_MS: String(SLEEP_MS), FAKE_WORDS: String(WORDS) },
    });
    cleanups.push(() => peer.dispose());
    const peerLoad = load();
    const result = await peer.runLoad(CLIENTS, CLIENTS * PER_CLIENT, RUNS, 150, [
      '--warmup',
      '0',
      '--expect',
      EXPECTED,
    ]);
    process.stdout.write(
      '\n| load avg | peer conversations/s | peer failed | peer conversation p50 ms | peer first token p50 / p99 ms | ' +
        'peer CPU ms per conversation | ours / peer |\n|---|---|---|---|---|---|---|\n' +
        `${peerRow(peerLoad, runs, result)}\n`,
    );
  }
}

runBenchmark(cleanups, measure);
