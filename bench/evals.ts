/**
 * Live conversations of an organization while an eval of the same organization runs (CONTRACTS §23, issue 49):
 * the first delta of a live reply should stay within 2× of its idle figure (p99) while a 500-item eval shares the
 * workers. One gateway and one worker with the builtin model and the settings `npm start` uses (info logs, default
 * concurrency, EVAL_ITEMS_IN_FLIGHT unless set). Each round: BENCH_LIVE_CLIENTS clients hold conversations
 * (`POST /chat` with a 22-word `/say`, the stream read to its end, text checked) back to back for
 * BENCH_IDLE_SECONDS with nothing else running (idle), then an eval run of BENCH_EVAL_ITEMS items starts and the
 * same clients go on until the run is done (loaded). Each eval item streams a 20-word `/say` with `/sleep
 * BENCH_EVAL_SLEEP_MS` between words, so an item holds its slot as a model's reply would. Prints per round the
 * first-delta p50/p99 idle and loaded, their ratio, the run's duration, and the medians over BENCH_RUNS rounds,
 * beside `node /work/shared/bench-calibrate.mjs` (the machine is shared: compare figures of one run only).
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/evals.js
 *
 * Environment: BENCH_RUNS (3), BENCH_LIVE_CLIENTS (4), BENCH_IDLE_SECONDS (15), BENCH_EVAL_ITEMS (500),
 * BENCH_EVAL_SLEEP_MS (20), BENCH_CALIBRATE (default /work/shared/bench-calibrate.mjs; empty: skipped).
 * Settings of the apps pass through (support's PASSED_SETTINGS, and EVAL_ITEMS_IN_FLIGHT).
 */
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import { converse, Target } from './conversation-client';
import {
  benchNumbers,
  Cleanup,
  createBenchEnvironment,
  median,
  passedSettings,
  percentile,
  runBenchmark,
  sleep,
} from './support';

const { RUNS, LIVE_CLIENTS, IDLE_SECONDS, EVAL_ITEMS, EVAL_SLEEP_MS } = benchNumbers({
  RUNS: 3,
  LIVE_CLIENTS: 4,
  IDLE_SECONDS: 15,
  EVAL_ITEMS: 500,
  EVAL_SLEEP_MS: 20,
});
const CALIBRATE = process.env.BENCH_CALIBRATE ?? '/work/shared/bench-calibrate.mjs';
const LIVE_WORDS =
  'the quick brown fox jumps over the lazy dog while seven clever ravens watch from an old oak tree';
const LIVE_TEXT = LIVE_WORDS.split(' ').slice(0, 22).join(' ');
const EVAL_WORDS =
  'an evaluated answer of twenty words that takes as long to stream as a small model reply would take here';

/** First-delta milliseconds of the conversations held until `until` says stop (checked between conversations). */
async function holdConversations(target: Target, until: () => boolean): Promise<number[]> {
  const firstDeltas: number[] = [];
  await Promise.all(
    Array.from({ length: LIVE_CLIENTS }, async () => {
      while (!until())
        firstDeltas.push((await converse(target, `/say ${LIVE_TEXT}`, LIVE_TEXT)).firstDeltaMs);
    }),
  );
  return firstDeltas;
}

interface Round {
  idleP50: number;
  idleP99: number;
  loadedP50: number;
  loadedP99: number;
  idleCount: number;
  loadedCount: number;
  evalSeconds: number;
}

async function calibration(): Promise<string> {
  if (!CALIBRATE) return 'calibration skipped';
  const { stdout } = await promisify(execFile)(process.execPath, [CALIBRATE]);
  return stdout.trim();
}

const cleanups: Cleanup[] = [];

async function measure(): Promise<void> {
  const bench = await createBenchEnvironment({ LOG_LEVEL: 'info', ...passedSettings() });
  cleanups.push(() => bench.dispose());
  const inFlight = process.env.EVAL_ITEMS_IN_FLIGHT
    ? { EVAL_ITEMS_IN_FLIGHT: process.env.EVAL_ITEMS_IN_FLIGHT }
    : {};
  const [gateway] = await Promise.all([bench.startGateway(), bench.startWorker(inFlight)]);
  const { key } = await bench.admin<{ key: string }>(['keys:create', '--org', 'bench']);
  const { id: agentId } = await bench.admin<{ id: string }>([
    'agents:create',
    '--org',
    'bench',
    '--name',
    'bench',
  ]);
  const target: Target = { url: gateway.url, key, agentId };
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-service-token': key },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
  const items = Array.from({ length: EVAL_ITEMS }, (_, index) => ({
    input: { content: `/sleep ${EVAL_SLEEP_MS}\n/say ${index} ${EVAL_WORDS}` },
    expected: { contains: EVAL_WORDS },
  }));
  const dataset = await call('POST', '/evals/datasets', { name: 'bench', items });
  // Warm-up: the first conversations pay for connections and JIT.
  await holdConversations(
    target,
    (
      (deadline) => () =>
        Date.now() > deadline
    )(Date.now() + 3000),
  );

  process.stdout.write(
    `live clients ${LIVE_CLIENTS}, eval items ${EVAL_ITEMS} (/sleep ${EVAL_SLEEP_MS}, 21 words), ` +
      `EVAL_ITEMS_IN_FLIGHT ${process.env.EVAL_ITEMS_IN_FLIGHT ?? 'default'}\n`,
  );
  const rounds: Round[] = [];
  for (let index = 0; index < RUNS; index++) {
    const load = loadavg()[0].toFixed(2);
    const idleUntil = Date.now() + IDLE_SECONDS * 1000;
    const idle = await holdConversations(target, () => Date.now() > idleUntil);

    const started = Date.now();
    const run = await call('POST', '/evals/runs', { dataset_id: dataset.id, agent_id: agentId });
    let done = false;
    const watch = (async () => {
      while (!done) {
        const state = await call('GET', `/evals/runs/${String(run.id)}`);
        done = state.status === 'done';
        if (!done) await sleep(250);
      }
    })();
    const loaded = await holdConversations(target, () => done);
    await watch;
    const state = await call('GET', `/evals/runs/${String(run.id)}`);
    const summary = state.summary as { items: number; passed: number };
    if (summary.passed !== EVAL_ITEMS) throw new Error(`eval run passed ${summary.passed} of ${EVAL_ITEMS}`);
    const round: Round = {
      idleP50: percentile(idle, 50),
      idleP99: percentile(idle, 99),
      loadedP50: percentile(loaded, 50),
      loadedP99: percentile(loaded, 99),
      idleCount: idle.length,
      loadedCount: loaded.length,
      evalSeconds: (Date.now() - started) / 1000,
    };
    rounds.push(round);
    process.stdout.write(
      `round ${index + 1} (load ${load}): first delta idle p50 ${round.idleP50.toFixed(1)} p99 ` +
        `${round.idleP99.toFixed(1)} ms (${round.idleCount} conversations); during the eval p50 ` +
        `${round.loadedP50.toFixed(1)} p99 ${round.loadedP99.toFixed(1)} ms (${round.loadedCount}); p99 ratio ` +
        `${(round.loadedP99 / round.idleP99).toFixed(2)}; eval ${round.evalSeconds.toFixed(1)} s\n`,
    );
  }
  const med = (pick: (round: Round) => number) => median(rounds.map(pick));
  process.stdout.write(
    `\nmedians of ${RUNS}: first delta idle p50 ${med((r) => r.idleP50).toFixed(1)} p99 ` +
      `${med((r) => r.idleP99).toFixed(1)} ms; during the eval p50 ${med((r) => r.loadedP50).toFixed(1)} p99 ` +
      `${med((r) => r.loadedP99).toFixed(1)} ms; p99 ratio ${med((r) => r.loadedP99 / r.idleP99).toFixed(2)}; ` +
      `eval ${med((r) => r.evalSeconds).toFixed(1)} s\n${await calibration()}\n`,
  );
}

runBenchmark(cleanups, measure);
