import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { appScript } from './test-environment';

/**
 * A free TCP port on loopback, below the kernel's ephemeral range (`ip_local_port_range`). A port the kernel hands
 * out for `listen(0)` comes from that range, so any outgoing connection (to PostgreSQL, Redis, the gateway) could
 * take it between this answer and the server's bind: CI runs lost gateway starts to EADDRINUSE so. Below the range
 * only another test's server can take it, and the picks are random so two suites rarely meet.
 */
export async function freePort(highest = EPHEMERAL_PORTS_START - 1): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST_TEST_PORT + Math.floor(Math.random() * (highest - LOWEST_TEST_PORT + 1));
    if (await isFreePort(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST_TEST_PORT} and ${highest}`);
}

/** Above the well-known services a developer's box may run (PostgreSQL 5432, Redis 6379, dev servers 8000-9999). */
const LOWEST_TEST_PORT = 10000;

const EPHEMERAL_PORTS_START = ephemeralPortsStart();

function ephemeralPortsStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32768; // Linux's default, and the range's start on most systems
  }
}

export function isFreePort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * How long a gateway or worker may take to start: 30 s on a machine of 4 idle cores or more, longer in proportion
 * on fewer or busier cores (60 s on 2 idle ones: two test files start theirs at once), at most 3 minutes; or
 * TEST_START_TIMEOUT_MS. A process that misses it is killed before the start fails, so no failed start leaves a
 * process behind.
 */
export const START_TIMEOUT_MS = Number(process.env.TEST_START_TIMEOUT_MS ?? scaledStartTimeoutMs());

function scaledStartTimeoutMs(): number {
  const cores = cpus().length;
  const load = Math.max(4, loadavg()[0] + 2) / cores;
  return Math.min(180000, Math.round(30000 * Math.max(1, load)));
}

/** Every app process this test process started and that still runs: killed if the test process exits first. */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) child.kill('SIGKILL');
});

/** A real gateway or worker process of the compiled app, with its output kept for failure messages. */
export class AppProcess {
  output = '';
  private readonly exited: Promise<number | null>;

  constructor(
    readonly app: 'gateway' | 'worker',
    readonly child: ChildProcess,
    readonly url?: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    started.add(child);
    this.exited = new Promise((resolve) =>
      child.on('exit', (code) => {
        started.delete(child);
        resolve(code);
      }),
    );
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Graceful stop (SIGTERM), then SIGKILL after the grace period. */
  async stop(graceMs = 10000): Promise<number | null> {
    if (!this.running) return this.child.exitCode;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  /** Kills the process at once, as a crash would. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  waitForExit(): Promise<number | null> {
    return this.exited;
  }

  /** Resolves when the output contains the text (e.g. a log line), or fails after the timeout. */
  async waitForOutput(text: string | RegExp, timeoutMs = 20000): Promise<void> {
    const found = () => (typeof text === 'string' ? this.output.includes(text) : text.test(this.output));
    const deadline = Date.now() + timeoutMs;
    while (!found()) {
      if (!this.running) throw new Error(`${this.app} exited before printing ${text}:\n${this.output}`);
      if (Date.now() > deadline)
        throw new Error(`${this.app} did not print ${text} in time:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * A gateway on free ports, ready. A port freePort answered can be taken by another process before the gateway
 * binds it (two CI runs of this session lost a start so): a start that fails on EADDRINUSE is tried again on
 * other ports, twice at most.
 */
export async function startGateway(
  env: NodeJS.ProcessEnv,
  extraEnv: NodeJS.ProcessEnv = {},
  startTimeoutMs = START_TIMEOUT_MS,
): Promise<AppProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startGatewayOnFreePorts(env, extraEnv, startTimeoutMs);
    } catch (error) {
      if (attempt === 3 || !(error instanceof PortTakenError)) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startGatewayOnFreePorts(
  env: NodeJS.ProcessEnv,
  extraEnv: NodeJS.ProcessEnv,
  startTimeoutMs: number,
): Promise<AppProcess> {
  const port = await freePort();
  const storagePort = await freePort();
  const child = spawn(process.execPath, [appScript('gateway')], {
    env: { ...env, PORT: String(port), STORAGE_PORT: String(storagePort), HOST: '127.0.0.1', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const gateway = new AppProcess('gateway', child, `http://127.0.0.1:${port}`);
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (!gateway.running) {
      const failure = `gateway exited at start:\n${gateway.output}`;
      throw gateway.output.includes('EADDRINUSE') ? new PortTakenError(failure) : new Error(failure);
    }
    try {
      const response = await fetch(`${gateway.url}/health/ready`);
      if (response.ok) return gateway;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await gateway.kill();
      throw new Error(`gateway not ready in ${startTimeoutMs} ms (killed):\n${gateway.output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startWorker(
  env: NodeJS.ProcessEnv,
  extraEnv: NodeJS.ProcessEnv = {},
  startTimeoutMs = START_TIMEOUT_MS,
): Promise<AppProcess> {
  // Each worker its own health port: a taken one stops a worker at start.
  const healthPort = String(await freePort());
  const child = spawn(process.execPath, [appScript('worker')], {
    env: { ...env, LOG_LEVEL: 'info', WORKER_HEALTH_PORT: healthPort, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const worker = new AppProcess('worker', child);
  try {
    await worker.waitForOutput('worker started', startTimeoutMs);
  } catch (error) {
    await worker.kill();
    throw error;
  }
  return worker;
}
