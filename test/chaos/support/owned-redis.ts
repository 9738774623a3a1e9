import { ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../../support/processes';

/**
 * A redis-server of the chaos suite's own, on a spare port, without persistence: it may be killed (losing all
 * its data, as a crash of an unpersisted Redis does) and started again on the same port.
 */
export class OwnedRedis {
  private child?: ChildProcess;

  private constructor(readonly port: number) {}

  static async start(): Promise<OwnedRedis> {
    const redis = new OwnedRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again) on the same port, empty, and waits until it answers. */
  async restart(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.child = child;
    const deadline = Date.now() + 10000;
    for (;;) {
      const client = new Redis(this.url, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      try {
        await client.connect();
        await client.ping();
        return;
      } catch {
        if (child.exitCode !== null)
          throw new Error(`redis-server on ${this.port} exited with ${child.exitCode}`);
        if (Date.now() > deadline) throw new Error(`redis-server on ${this.port} did not start`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        client.disconnect();
      }
    }
  }

  /** SIGKILL: every connection drops at once and the data is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
