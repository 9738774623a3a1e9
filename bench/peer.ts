/**
 * The peer of ../shared/peer (the LangGraph.js Agent Server, in memory, with a fake model streaming the same 22
 * words) and its load generator, run from inside our own benchmark so that both are measured in the same minutes
 * of this shared, noisy machine: the ratio of the two is the figure that counts (BENCHMARKS.md).
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { treeCpuMs } from './proc-cpu';
import { freePort, waitFor } from './support';

const run = promisify(execFile);

/** load.mjs's summary of one client count: each figure's median, min and max over its repetitions. */
interface PeerSummary {
  c: number;
  completed: number[];
  /** Conversations that failed (an error, or a reply other than the one expected), over all repetitions. */
  errors: number;
  conv_per_s: { median: number };
  total_p50_ms: { median: number };
  ttft_p50_ms: { median: number };
  ttft_p99_ms: { median: number };
}

export interface PeerResult {
  summary: PeerSummary;
  /** CPU of the peer's server per conversation it served, warm-ups included (see runLoad). */
  cpuMsPerConversation: number;
}

export class Peer {
  private constructor(
    private readonly dir: string,
    private readonly url: string,
    private readonly child: ChildProcess,
  ) {}

  /**
   * The peer's server on a spare port (not its default 8125, which other people's runs may hold). `options`: its
   * server configuration (e.g. `nWorkers`) and environment (its fake model's `FAKE_TOKEN_DELAY_MS`,
   * `FAKE_WORDS`), as its README says.
   */
  static async start(
    dir: string,
    options: { config?: Record<string, unknown>; env?: NodeJS.ProcessEnv } = {},
  ): Promise<Peer> {
    const port = await freePort();
    const child = spawn(process.execPath, ['serve.mjs', JSON.stringify({ ...options.config, port })], {
      cwd: join(dir, 'langgraph'),
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        LOG_LEVEL: 'warn',
        LANGSMITH_TRACING: 'false',
        ...options.env,
      },
      stdio: 'ignore',
    });
    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${url}/ok`)).ok, 'peer', 60000);
    return new Peer(dir, url, child);
  }

  /**
   * load.mjs at `clients` concurrent clients, `reps` repetitions of at most `count` conversations or `maxSeconds`
   * each (the peer does ~2 conversations/s at one client). Each repetition starts with a warm-up of
   * max(10, clients) conversations, which the CPU per conversation counts too: load.mjs does not report them apart.
   */
  async runLoad(
    clients: number,
    count: number,
    reps: number,
    maxSeconds: number,
    extraArgs: string[] = [],
  ): Promise<PeerResult> {
    const pid = this.child.pid ?? 0;
    const cpuBefore = treeCpuMs(pid);
    const args = [
      '--base',
      this.url,
      '--c',
      String(clients),
      '--n',
      String(count),
      '--reps',
      String(reps),
      ...extraArgs,
    ];
    const { stdout } = await run(
      process.execPath,
      [join(this.dir, 'load.mjs'), ...args, '--max-seconds', String(maxSeconds)],
      {
        maxBuffer: 1 << 24,
      },
    );
    const cpuMs = treeCpuMs(pid) - cpuBefore;
    const lines = stdout.trim().split('\n');
    const summary = JSON.parse(lines[lines.indexOf('SUMMARY') + 1]) as PeerSummary;
    // Counted, not refused: a peer that fails under the load is part of the comparison (issue 45). Its first
    // errors, per repetition, go to stderr to say why.
    if (summary.errors > 0) {
      for (const line of lines.slice(0, lines.indexOf('SUMMARY'))) {
        const { firstErrors } = JSON.parse(line) as { firstErrors?: string[] };
        if (firstErrors?.length) process.stderr.write(`peer errors: ${firstErrors.join(' | ')}\n`);
      }
    }
    const warmup = extraArgs.includes('--warmup') ? Number(extraArgs[extraArgs.indexOf('--warmup') + 1]) : 10;
    const conversations =
      summary.completed.reduce((sum, n) => sum + n, 0) + reps * (warmup > 0 ? Math.max(warmup, clients) : 0);
    return { summary, cpuMsPerConversation: cpuMs / conversations };
  }

  async dispose(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
