import { spawn } from 'node:child_process';
import { AppProcess, freePort } from '../support/processes';
import { appScript, createTestEnvironment, TestEnvironment } from '../support/test-environment';
import {
  expectWaitingForMissingDatabase,
  expectWaitingForRedis,
  MISSING_DATABASE_URL,
} from './startup.support';

/**
 * Issue 35 item 4, for the worker: while PostgreSQL or Redis is unreachable at start it answers liveness on
 * WORKER_HEALTH_PORT (so an orchestrator does not restart it for waiting), says on readiness what it waits for,
 * logs one line per retry naming the setting, and starts once the dependency answers.
 */
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment();
});

afterAll(async () => {
  await environment?.dispose();
});

/** A worker with some settings of its own, its health port at `url`. */
async function spawnWorker(extraEnv: NodeJS.ProcessEnv): Promise<AppProcess> {
  const healthPort = await freePort();
  const child = spawn(process.execPath, [appScript('worker')], {
    env: { ...environment.env, LOG_LEVEL: 'info', WORKER_HEALTH_PORT: String(healthPort), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new AppProcess('worker', child, `http://127.0.0.1:${healthPort}`);
}

/** Polls readiness until it answers 200 (consumers start a moment after the app), or gives up. */
async function readyStatus(url: string, timeoutMs = 10000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = (await fetch(`${url}/health/ready`)).status;
    if (status === 200 || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

it('waits for Redis answering liveness, one line per retry naming REDIS_URL, and starts once it is up', async () => {
  const redisPort = await freePort();
  const waiting = await spawnWorker({ REDIS_URL: `redis://127.0.0.1:${redisPort}` });
  await expectWaitingForRedis(waiting, redisPort, {
    waiting: async () => {
      expect((await fetch(`${waiting.url}/health/live`)).status).toBe(200);
      const ready = await fetch(`${waiting.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({
        detail: `Starting: waiting for Redis at REDIS_URL redis://127.0.0.1:${redisPort}`,
      });
    },
    started: async () => {
      await waiting.waitForOutput('worker started', 20000);
      expect(await readyStatus(waiting.url!)).toBe(200);
    },
  });
}, 60_000);

it('names DATABASE_URL, without its password, while PostgreSQL does not answer, and stays alive', async () => {
  const waiting = await spawnWorker({ DATABASE_URL: MISSING_DATABASE_URL });
  await expectWaitingForMissingDatabase(waiting);
}, 60_000);
