import { DataSource } from 'typeorm';
import { dataSourceOptions, runPreparedAcrossTenants } from '@app/persistence';
import { createAgent, createOrg } from '../factories/admin';
import { PgBouncer } from '../support/pgbouncer';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';
import { conversationSuite, Deployment } from './engines.support';

/**
 * Gateway and worker reach PostgreSQL through a PgBouncer in transaction mode (Debian 12's 1.18, which does
 * not carry named prepared statements across server connections), so they run with
 * DATABASE_PREPARED_STATEMENTS=false. Migrations went direct, as DATABASE_MIGRATION_URL documents.
 */
let environment: TestEnvironment;
let bouncer: PgBouncer;
let gateway: AppProcess;
let worker: AppProcess;
let deployment: Deployment;

beforeAll(async () => {
  environment = await createTestEnvironment();
  bouncer = await PgBouncer.start(environment.databaseUrl, [
    { name: 'single_server', database: environment.name, poolSize: 1 },
  ]);
  const throughBouncer = {
    DATABASE_URL: bouncer.url(environment.databaseUrl),
    DATABASE_PREPARED_STATEMENTS: 'false',
    DATABASE_POOL_SIZE: '5',
  };
  gateway = await startGateway(environment.env, throughBouncer);
  worker = await startWorker(environment.env, { ...throughBouncer, WORKER_HEALTH_PORT: '0' });
  const org = await createOrg(environment.env);
  const agent = await createAgent(environment.env, org.org);
  deployment = {
    gatewayUrl: gateway.url!,
    key: org.key,
    agentId: agent.id,
    databaseUrl: environment.databaseUrl,
  };
}, 120000);

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await bouncer?.stop();
  await environment?.dispose();
});

describe('through PgBouncer in transaction mode', () => {
  conversationSuite(() => deployment);

  it('relayed the apps’ transactions (nothing went around it)', async () => {
    expect(await bouncer.transactions(environment.databaseUrl, environment.name)).toBeGreaterThan(10);
  });
});

describe('DATABASE_PREPARED_STATEMENTS', () => {
  const probe = { name: 'parley_probe', text: 'SELECT $1::int AS n' };

  /** Two pools on one PgBouncer database with a single server connection: their statements meet there. */
  async function twoPools(namedStatements: boolean): Promise<[DataSource, DataSource]> {
    const options = dataSourceOptions(
      {
        databaseUrl: bouncer.url(environment.databaseUrl, 'single_server'),
        databasePreparedStatements: namedStatements,
      },
      1,
    );
    return Promise.all([new DataSource(options).initialize(), new DataSource(options).initialize()]);
  }

  it('named statements break behind PgBouncer 1.18: the second client finds the name taken', async () => {
    const [first, second] = await twoPools(true);
    try {
      await expect(runPreparedAcrossTenants(first, probe, [1])).resolves.toEqual([{ n: 1 }]);
      await expect(runPreparedAcrossTenants(second, probe, [2])).rejects.toThrow(
        /prepared statement "parley_probe" already exists/,
      );
    } finally {
      await Promise.all([first.destroy(), second.destroy()]);
    }
  });

  it('turned off, the same statements run unnamed on the shared server connection', async () => {
    const [first, second] = await twoPools(false);
    try {
      await expect(runPreparedAcrossTenants(first, probe, [1])).resolves.toEqual([{ n: 1 }]);
      await expect(runPreparedAcrossTenants(second, probe, [2])).resolves.toEqual([{ n: 2 }]);
      await expect(runPreparedAcrossTenants(first, probe, [3])).resolves.toEqual([{ n: 3 }]);
    } finally {
      await Promise.all([first.destroy(), second.destroy()]);
    }
  });
});
