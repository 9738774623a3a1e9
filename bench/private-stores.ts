/**
 * A PostgreSQL cluster and a redis-server of a benchmark's own, on spare ports, started the way the chaos suite
 * starts its private instances (test/chaos/support). Two reasons to bring our own: the CPU a benchmark charges to
 * PostgreSQL and Redis must be ours alone (the shared servers on 5432/6379 also serve other people's tests), and
 * `pg_stat_statements` needs `shared_preload_libraries`, which must not be set on the shared server.
 *
 * Unlike the chaos suite's cluster, this one keeps fsync and synchronous commit on, as the shared server and a
 * real deployment have them: a benchmark of durable conversations has to pay for its commits.
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { Cleanup, freePort, waitFor } from './support';

const run = promisify(execFile);

export class PrivatePostgres {
  private static readonly bin = (() => {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    if (versions.length === 0) throw new Error('no PostgreSQL under /usr/lib/postgresql');
    return join('/usr/lib/postgresql', versions[0], 'bin');
  })();
  // PostgreSQL refuses to run as root: under root the cluster belongs to the `postgres` user.
  private static readonly asPostgres = process.getuid?.() === 0;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  /**
   * `statements`: preload pg_stat_statements, planning time included (it costs a little CPU per statement, so only
   * when asked). `nested`: count the statements that functions and triggers run as rows of their own, and time
   * each function (pg_stat_user_functions): what a statement's time is made of, where a plan is not kept.
   */
  static async start(options: { statements: boolean; nested?: boolean }): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'parley-bench-pg-'));
    const postgres = new PrivatePostgres(await freePort(), dir);
    if (PrivatePostgres.asPostgres) {
      const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
      chownSync(dir, await id('-u'), await id('-g'));
    }
    await postgres.exec('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
    const settings = [
      `-p ${postgres.port}`,
      '-c listen_addresses=127.0.0.1',
      `-k ${dir}`,
      '-c max_connections=200',
      ...(options.statements
        ? [
            '-c shared_preload_libraries=pg_stat_statements',
            '-c pg_stat_statements.track_utility=on',
            '-c pg_stat_statements.track_planning=on',
          ]
        : []),
      ...(options.statements && options.nested
        ? ['-c pg_stat_statements.track=all', '-c track_functions=all']
        : []),
    ];
    await postgres.exec('pg_ctl', [
      '-D',
      join(dir, 'data'),
      '-l',
      join(dir, 'log'),
      '-o',
      settings.join(' '),
      '-w',
      'start',
    ]);
    return postgres;
  }

  /** The maintenance database's URL (createBenchEnvironment creates the benchmark's database beside it). */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** The postmaster: every other process of the cluster is its child. */
  get pid(): number {
    return Number(readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  async dispose(): Promise<void> {
    await this.exec('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']).catch(
      () => undefined,
    );
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async exec(tool: string, args: string[]): Promise<void> {
    const path = join(PrivatePostgres.bin, tool);
    if (PrivatePostgres.asPostgres) await run('runuser', ['-u', 'postgres', '--', path, ...args]);
    else await run(path, args);
  }
}

/** A redis-server without persistence, as the shared one runs (`save ""`, no AOF). */
export class PrivateRedis {
  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
  ) {}

  static async start(): Promise<PrivateRedis> {
    const port = await freePort();
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const redis = new PrivateRedis(port, child);
    await waitFor(async () => {
      const client = new Redis(redis.url, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      client.on('error', () => undefined); // refused until the server listens: connect() rejects, enough to retry
      try {
        await client.connect();
        return (await client.ping()) === 'PONG';
      } finally {
        client.disconnect();
      }
    }, 'redis-server');
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error('redis-server has no pid');
    return this.child.pid;
  }

  async dispose(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}

/**
 * A private PostgreSQL (with pg_stat_statements when `statements`) and a private Redis, started in that order, each
 * pushed on `cleanups` as soon as it runs, so that a failure later still stops it.
 */
export async function startPrivateStores(
  cleanups: Cleanup[],
  statements: boolean,
): Promise<{ postgres: PrivatePostgres; redis: PrivateRedis }> {
  const postgres = await PrivatePostgres.start({ statements });
  cleanups.push(() => postgres.dispose());
  const redis = await PrivateRedis.start();
  cleanups.push(() => redis.dispose());
  return { postgres, redis };
}
