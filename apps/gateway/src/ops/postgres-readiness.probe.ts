import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { Settings } from '@app/config';
import { PROBE_TIMEOUT_MS, withinProbeTime } from '@app/observability';

/**
 * Whether PostgreSQL answers, for `/health/ready`: `SELECT 1` on a connection of the probe's own, kept open between
 * probes. Not one of the pool's: under a burst the pool's queue holds requests' statements, and the probe would
 * wait behind them. Kept open because opening one per probe had PostgreSQL start a backend each time, which under
 * load took most of the second the probe has (the health chaos spec saw 1.1 s in CI). A connection that closed or
 * failed is dropped, and the next probe opens another; the whole probe, a connect included, gets PROBE_TIMEOUT_MS.
 */
@Injectable()
export class PostgresReadinessProbe implements OnApplicationShutdown {
  private connection: Promise<Client> | null = null;

  constructor(private readonly settings: Settings) {}

  async answers(): Promise<void> {
    const connection = (this.connection ??= this.connect());
    try {
      await withinProbeTime(connection.then((client) => client.query('SELECT 1')));
    } catch (error) {
      this.drop(connection);
      throw error;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.connection) this.drop(this.connection);
  }

  private connect(): Promise<Client> {
    const client = new Client({
      connectionString: this.settings.databaseUrl,
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
      query_timeout: PROBE_TIMEOUT_MS,
    });
    const connection = client.connect().then(() => client);
    // A server that closed the connection (a restart, a PgBouncer gone): the next probe connects afresh. The failure
    // itself is what `answers` reports; a late socket error must not end the process.
    client.on('error', () => this.drop(connection));
    client.on('end', () => this.drop(connection));
    return connection;
  }

  /** Forgets `connection` (when it is still the probe's) and closes it without waiting: a hung server may not answer. */
  private drop(connection: Promise<Client>): void {
    if (this.connection === connection) this.connection = null;
    connection.then((client) => client.end()).catch(() => undefined);
  }
}
