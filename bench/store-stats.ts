/**
 * What the stores did for a set of conversations: PostgreSQL statements (pg_stat_statements: calls, time, rows,
 * WAL bytes), commits and WAL of the whole cluster, and Redis commands (INFO commandstats), each divided by the
 * number of conversations. Works on the benchmark's private stores only: it resets their counters.
 */
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { sleep } from './support';

interface Baseline {
  commits: number;
  walLsn: string;
}

export class StoreStats {
  private baseline?: Baseline;

  private constructor(
    private readonly postgres: Client,
    private readonly redis: Redis,
    private readonly database: string,
  ) {}

  /** `maintenanceUrl`: the cluster's `postgres` database, where the extension's view is created. */
  static async connect(maintenanceUrl: string, redisUrl: string, database: string): Promise<StoreStats> {
    const postgres = new Client({ connectionString: maintenanceUrl });
    await postgres.connect();
    await postgres.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    return new StoreStats(postgres, new Redis(redisUrl), database);
  }

  async reset(): Promise<void> {
    await this.postgres.query('SELECT pg_stat_statements_reset()');
    await this.redis.config('RESETSTAT');
    this.baseline = await this.readBaseline();
  }

  /** Markdown tables of everything since `reset`, per conversation; statements by total time, `top` of them. */
  async report(conversations: number, top = 15): Promise<string> {
    if (!this.baseline) throw new Error('report before reset');
    const { commits, walLsn } = this.baseline;
    const now = await this.readBaseline();
    const [{ wal }] = (
      await this.postgres.query<{ wal: string }>('SELECT pg_wal_lsn_diff($1, $2)::text AS wal', [
        now.walLsn,
        walLsn,
      ])
    ).rows;
    const statements = (
      await this.postgres.query<{ query: string; calls: string; ms: number; rows: string; wal: string }>(
        `SELECT s.query, s.calls, s.total_exec_time AS ms, s.rows, s.wal_bytes::text AS wal
           FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
          WHERE d.datname = $1 ORDER BY s.total_exec_time DESC`,
        [this.database],
      )
    ).rows;
    const per = (value: number | string) => Number(value) / conversations;
    const sum = (pick: (row: (typeof statements)[number]) => number | string) =>
      per(statements.reduce((total, row) => total + Number(pick(row)), 0));
    const text = (query: string) => query.replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 160);
    const lines = [
      `${conversations} conversations. Per conversation: ${per(now.commits - commits).toFixed(2)} transactions ` +
        `(pg_stat_database.xact_commit, read-only ones too), ${per(wal).toFixed(0)} WAL bytes (whole cluster, pg_current_wal_lsn), ` +
        `${sum((row) => row.calls).toFixed(2)} statements taking ${sum((row) => row.ms).toFixed(3)} ms, ` +
        `${sum((row) => row.wal).toFixed(0)} WAL bytes by statements.`,
      '',
      '| statement | calls | total ms | rows | WAL bytes | mean ms |',
      '|---|---|---|---|---|---|',
      ...statements
        .slice(0, top)
        .map(
          (row) =>
            `| \`${text(row.query)}\` | ${per(row.calls).toFixed(2)} | ${per(row.ms).toFixed(3)} | ` +
            `${per(row.rows).toFixed(2)} | ${per(row.wal).toFixed(0)} | ${(row.ms / Number(row.calls)).toFixed(3)} |`,
        ),
      '',
      '| Redis command | calls | total µs | µs per call |',
      '|---|---|---|---|',
      ...(await this.commandStats()).map(
        ({ command, calls, usec }) =>
          `| ${command} | ${per(calls).toFixed(2)} | ${per(usec).toFixed(1)} | ${(usec / calls).toFixed(2)} |`,
      ),
    ];
    return lines.join('\n');
  }

  async close(): Promise<void> {
    await this.postgres.end();
    this.redis.disconnect();
  }

  private async readBaseline(): Promise<Baseline> {
    // A backend flushes its transaction counts to the shared statistics at most once a second while busy and
    // within 10 s of going idle (PostgreSQL 15's PGSTAT_IDLE_INTERVAL): wait for that, or the warm-up's last
    // transactions land in the difference and the last round's are missing from it.
    await sleep(11000);
    const [row] = (
      await this.postgres.query<{ commits: string; lsn: string }>(
        'SELECT xact_commit AS commits, pg_current_wal_lsn()::text AS lsn FROM pg_stat_database WHERE datname = $1',
        [this.database],
      )
    ).rows;
    return { commits: Number(row.commits), walLsn: row.lsn };
  }

  /** INFO commandstats, busiest first. Commands a Lua script calls count both alone and inside EVALSHA's time. */
  private async commandStats(): Promise<{ command: string; calls: number; usec: number }[]> {
    const info = await this.redis.info('commandstats');
    return [...info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)]
      .map(([, command, calls, usec]) => ({ command, calls: Number(calls), usec: Number(usec) }))
      .filter(({ command }) => !command.startsWith('config') && command !== 'info')
      .sort((a, b) => b.usec - a.usec);
  }
}
