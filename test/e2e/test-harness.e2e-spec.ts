import { execFileSync, spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { startGateway, startWorker } from '../support/processes';
import {
  createTestEnvironment,
  dropLeftoverEnvironments,
  queryDatabase,
  TestEnvironment,
} from '../support/test-environment';

/** Processes the e2e harness starts never outlive a failed start (issue 46: 21 orphans at minute 20). */
describe('test harness', () => {
  // A Redis that never answers: both apps wait for it at start and never become ready.
  const unreachableRedis = { REDIS_URL: 'redis://127.0.0.1:9' };
  let environment: TestEnvironment;

  beforeAll(async () => {
    environment = await createTestEnvironment();
  });

  afterAll(() => environment?.dispose());

  /** This test process's children that run an app of the build (gateway or worker). */
  const appChildren = (app: 'gateway' | 'worker') =>
    execFileSync('ps', ['--ppid', String(process.pid), '-o', 'args='], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes(`apps/${app}/src/main.js`));

  it('kills a gateway that never becomes ready before the start fails', async () => {
    const start = startGateway(environment.env, unreachableRedis, 3000);
    // While it waits, the process is there: the check below can see one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(appChildren('gateway')).toHaveLength(1);
    await expect(start).rejects.toThrow(/not ready in 3000 ms \(killed\)/);
    expect(appChildren('gateway')).toEqual([]);
  });

  it('kills a worker that never starts consuming before the start fails', async () => {
    const start = startWorker(environment.env, unreachableRedis, 3000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(appChildren('worker')).toHaveLength(1);
    await expect(start).rejects.toThrow(/did not print worker started in time/);
    expect(appChildren('worker')).toEqual([]);
  });

  it("drops a killed run's database and Redis keys, and keeps those of runs still going", async () => {
    // The pid of a process that has ended: what a killed test run's name carries.
    const deadPid = spawnSync('true').pid!;
    const leftover = `parley_test_${deadPid}_${Date.now().toString(36)}_abcdef`;
    const base = environment.databaseUrl.replace(/\/[^/]*$/, '/postgres');
    await queryDatabase(base, `CREATE DATABASE "${leftover}"`);
    const redis = new Redis(environment.env.REDIS_URL!);
    await redis.set(`${leftover}:bull:agent-run:id`, '1');
    await redis.set(`${environment.redisPrefix}:still-mine`, '1');
    try {
      expect(await dropLeftoverEnvironments()).toContain(leftover);
      const databases = await queryDatabase<{ datname: string }>(
        base,
        `SELECT datname FROM pg_database WHERE datname IN ($1, $2)`,
        [leftover, environment.name],
      );
      expect(databases.map((row) => row.datname)).toEqual([environment.name]);
      expect(await redis.exists(`${leftover}:bull:agent-run:id`)).toBe(0);
      expect(await redis.exists(`${environment.redisPrefix}:still-mine`)).toBe(1);
    } finally {
      redis.disconnect();
    }
  });
});
