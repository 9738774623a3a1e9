import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './processes';

const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

/**
 * A PgBouncer of the test's own, in transaction mode, in front of the shared PostgreSQL (trust auth, a spare
 * port, its config in a temp dir). `aliases` adds databases with their own server pool size, e.g. 1 to force
 * every client onto the same server connection.
 */
export class PgBouncer {
  output = '';

  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  static async start(
    upstreamUrl: string,
    aliases: { name: string; database: string; poolSize: number }[] = [],
    /** A port to listen on (a restart on the same address); a spare one when not given. */
    listenPort?: number,
  ) {
    if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: apt-get install -y pgbouncer`);
    const upstream = new URL(upstreamUrl);
    const dir = await mkdtemp(join(tmpdir(), 'parley-pgbouncer-'));
    // PgBouncer will not run as root: it drops to the postgres user, who must read the config.
    await chmod(dir, 0o755);
    const port = listenPort ?? (await freePort());
    const server = `host=${upstream.hostname} port=${upstream.port || 5432}`;
    await writeFile(join(dir, 'userlist.txt'), `"${decodeURIComponent(upstream.username)}" ""\n`);
    await writeFile(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        ...aliases.map(
          (alias) => `${alias.name} = ${server} dbname=${alias.database} pool_size=${alias.poolSize}`,
        ),
        `* = ${server}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'userlist.txt')}`,
        'pool_mode = transaction',
        // Fewer server connections than the apps' pools: clients really share them.
        'default_pool_size = 4',
        'max_client_conn = 200',
        `admin_users = ${decodeURIComponent(upstream.username)}`,
        '',
      ].join('\n'),
    );
    const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
    const child = spawn(PGBOUNCER, [...asUser, join(dir, 'pgbouncer.ini')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const bouncer = new PgBouncer(port, child, dir);
    const deadline = Date.now() + 10000;
    while (!bouncer.output.includes('process up')) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`pgbouncer did not start:\n${bouncer.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return bouncer;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The URL of a database through this PgBouncer, with the user of the upstream URL. */
  url(upstreamUrl: string, database?: string): string {
    const url = new URL(upstreamUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    if (database) url.pathname = `/${database}`;
    return url.toString();
  }

  /** Transactions PgBouncer relayed to one database (its admin console's SHOW STATS). */
  async transactions(upstreamUrl: string, database: string): Promise<number> {
    const client = new Client({ connectionString: this.url(upstreamUrl, 'pgbouncer') });
    await client.connect();
    try {
      const { rows } = await client.query<{ database: string; total_xact_count: string }>('SHOW STATS');
      return Number(rows.find((row) => row.database === database)?.total_xact_count ?? 0);
    } finally {
      await client.end();
    }
  }

  /**
   * PAUSE on the admin console: PgBouncer lets go of its server connections and holds every query until
   * `resume()`, still accepting clients, as a PgBouncer would look to a process while PostgreSQL is slow to answer.
   */
  async pause(upstreamUrl: string): Promise<void> {
    await this.admin(upstreamUrl, 'PAUSE');
  }

  async resume(upstreamUrl: string): Promise<void> {
    await this.admin(upstreamUrl, 'RESUME');
  }

  private async admin(upstreamUrl: string, command: string): Promise<void> {
    const client = new Client({ connectionString: this.url(upstreamUrl, 'pgbouncer') });
    await client.connect();
    try {
      await client.query(command);
    } finally {
      await client.end();
    }
  }

  /** SIGKILL, as a crashed PgBouncer: every client connection drops at once. Its config stays for a restart. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}
