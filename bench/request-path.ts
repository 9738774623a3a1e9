/**
 * The files a conversation crosses (issue 51): which source files of this checkout run code for one `POST /chat`
 * → `message.completed`, in the gateway and the worker, measured rather than read. Both apps run with V8's
 * precise coverage (bench/path-coverage-preload.ts); after warm-up conversations the counters are reset, one
 * conversation runs (a one-word `/say`), and the files whose functions ran in that window are taken. A file counts
 * when it ran in every one of BENCH_WINDOWS windows (default 3) and not in every idle window as long as them:
 * code that timers run (sweeps, the evaluation runner's tick, metrics) drops out. Module loading is over by then, so barrels and module declarations do not count; what
 * counts is the request's own path: controllers, guards, use cases, repositories, the run, the stream.
 *
 *   PARLEY_DIST=/tmp/dist-path npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-path/bench/request-path.js
 */
import { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { converse, Target } from './conversation-client';
import { createBenchEnvironment, runBenchmark, sleep } from './support';

const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 3);
const DIST = join(__dirname, '..');

/** Has each process write what ran since its last take; resolves with each one's file (by pid) once written. */
async function take(dir: string, apps: ChildProcess[], taken: number): Promise<Map<number, string>> {
  for (const app of apps) app.kill('SIGUSR2');
  const files = new Map(apps.map((app) => [app.pid!, join(dir, `${app.pid}-${taken}.json`)]));
  for (;;) {
    const present = new Set(await readdir(dir));
    if ([...files.values()].every((file) => present.has(file.slice(dir.length + 1)))) return files;
    await sleep(20);
  }
}

/** The source files (relative to the checkout, `.ts`) a coverage file names. */
async function sourcesOf(file: string): Promise<Set<string>> {
  const scripts = JSON.parse(await readFile(file, 'utf8')) as { url: string }[];
  return new Set(
    scripts
      .map((script) => relative(DIST, fileURLToPath(script.url)))
      .filter((path) => !path.startsWith('..') && !path.startsWith('bench/'))
      // Barrels' re-export getters run on each access through them: an indirection, not a step of the path.
      .filter((path) => !path.endsWith('/index.js'))
      .map((path) => path.replace(/\.js$/, '.ts')),
  );
}

const intersection = (sets: Set<string>[]) =>
  new Set([...sets[0]].filter((item) => sets.every((set) => set.has(item))));

const cleanups: (() => Promise<unknown>)[] = [];
runBenchmark(cleanups, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'parley-path-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const preload = {
    NODE_OPTIONS: `--require ${join(__dirname, 'path-coverage-preload.js')}`,
    PATH_COVERAGE_DIR: dir,
  };
  const environment = await createBenchEnvironment({ LOG_LEVEL: 'info' });
  cleanups.push(() => environment.dispose());
  const { key } = await environment.admin(['keys:create', '--org', 'bench']);
  const { id: agentId } = await environment.admin(['agents:create', '--org', 'bench', '--name', 'bench']);
  const gateway = await environment.startGateway(preload);
  const worker = await environment.startWorker(preload);
  const target: Target = { url: gateway.url, key, agentId };
  for (let i = 0; i < 5; i++) await converse(target, '/say warm', 'warm');

  let taken = 0;
  await take(dir, [gateway.child, worker], taken++);
  const windows = { gateway: [] as Set<string>[], worker: [] as Set<string>[] };
  const idle = { gateway: [] as Set<string>[], worker: [] as Set<string>[] };
  const record = async (into: typeof windows) => {
    const files = await take(dir, [gateway.child, worker], taken++);
    into.gateway.push(await sourcesOf(files.get(gateway.child.pid!)!));
    into.worker.push(await sourcesOf(files.get(worker.pid!)!));
  };
  for (let window = 0; window < WINDOWS; window++) {
    const started = Date.now();
    await converse(target, '/say hello', 'hello');
    // The worker's last work after the final line (waking the next reply, its logs) belongs to the path too.
    await sleep(300);
    await record(windows);
    // A window as long with no conversation: what timers run in every such window is not the path.
    await sleep(Date.now() - started);
    await record(idle);
  }
  const onPath = (app: keyof typeof windows) => {
    const periodic = intersection(idle[app]);
    return new Set([...intersection(windows[app])].filter((file) => !periodic.has(file)));
  };
  const gatewayFiles = onPath('gateway');
  const workerFiles = onPath('worker');
  const all = new Set([...gatewayFiles, ...workerFiles]);
  const byArea = new Map<string, number>();
  for (const file of all) {
    const area = file.split('/').slice(0, 2).join('/');
    byArea.set(area, (byArea.get(area) ?? 0) + 1);
  }
  console.log(
    `files a conversation crosses: ${all.size} (gateway ${gatewayFiles.size}, worker ${workerFiles.size})`,
  );
  console.log(
    [...byArea]
      .sort((a, b) => b[1] - a[1])
      .map(([area, count]) => `  ${area}: ${count}`)
      .join('\n'),
  );
  if (process.env.BENCH_LIST) console.log([...all].sort().join('\n'));
});
