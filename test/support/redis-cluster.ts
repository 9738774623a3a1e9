import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes';

const run = promisify(execFile);

/**
 * A Redis Cluster of three masters of the test's own: `redis-server --cluster-enabled yes` on three spare ports,
 * joined by `redis-cli --cluster create`. Nothing persisted; `stop()` removes it all.
 */
export class RedisCluster {
  private constructor(
    readonly ports: number[],
    private readonly servers: ChildProcess[],
    private readonly dir: string,
  ) {}

  /** The REDIS_URL of the cluster, in the form the settings accept. */
  get url(): string {
    return `redis-cluster://${this.ports.map((port) => `127.0.0.1:${port}`).join(',')}`;
  }

  static async start(): Promise<RedisCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'parley-redis-cluster-'));
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    const servers = ports.map((port) =>
      spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '5000',
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
          '--maxmemory-policy',
          'noeviction',
        ],
        { stdio: 'ignore' },
      ),
    );
    const cluster = new RedisCluster(ports, servers, dir);
    try {
      for (const port of ports) await waitFor(() => cli(port, 'ping').then((out) => out.trim() === 'PONG'));
      await run('redis-cli', [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ]);
      for (const port of ports)
        await waitFor(() => cli(port, 'cluster', 'info').then((out) => out.includes('cluster_state:ok')));
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** How many keys each master holds: a cluster in use spreads them over all three. */
  async keysPerNode(): Promise<number[]> {
    return Promise.all(this.ports.map(async (port) => Number((await cli(port, 'dbsize')).trim())));
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            if (server.exitCode !== null || server.signalCode !== null) return resolve();
            server.once('exit', () => resolve());
            server.kill('SIGTERM');
          }),
      ),
    );
    await rm(this.dir, { recursive: true, force: true });
  }
}

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args])).stdout;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('redis cluster not ready in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
