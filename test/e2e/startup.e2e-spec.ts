import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgBouncer } from '../support/pgbouncer';
import { AppProcess, freePort } from '../support/processes';
import { appScript, createTestEnvironment, TestEnvironment } from '../support/test-environment';
import {
  expectWaitingForMissingDatabase,
  expectWaitingForRedis,
  MISSING_DATABASE_URL,
} from './startup.support';

/**
 * What a person starting the gateway sees: `.env` in the working directory is read, the environment winning over
 * it; one line says where the API, docs, queue dashboard and storage host are; every log line has a `msg`.
 */
let environment: TestEnvironment;
let dir: string;
let gateway: AppProcess;
let port: number;
let storagePort: number;

beforeAll(async () => {
  environment = await createTestEnvironment();
  dir = await mkdtemp(join(tmpdir(), 'parley-startup-'));
  [port, storagePort] = await Promise.all([freePort(), freePort()]);
  // ADMIN_PASSWORD comes only from the file; PORT from both, the environment's must win.
  await writeFile(join(dir, '.env'), 'ADMIN_PASSWORD=from-the-file\nPORT=1\nLOG_LEVEL=info\n');
  const child = spawn(process.execPath, [appScript('gateway')], {
    cwd: dir,
    env: { ...environment.env, LOG_LEVEL: undefined, PORT: String(port), STORAGE_PORT: String(storagePort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  gateway = new AppProcess('gateway', child, `http://127.0.0.1:${port}`);
  await gateway.waitForOutput('gateway listening', 30000);
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await environment?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('says in one line where everything listens, with settings from .env and the environment winning', () => {
  const api = `http://127.0.0.1:${port}`;
  expect(gateway.output).toContain(
    `gateway listening: API ${api}, docs ${api}/docs, queue dashboard ${api}/admin/queues, ` +
      `storage host http://127.0.0.1:${storagePort}`,
  );
});

it('gives every log line a msg, from start to a graceful stop', async () => {
  expect((await fetch(`${gateway.url}/health/ready`)).status).toBe(200);
  expect(await gateway.stop()).toBe(0);
  expect(gateway.output).toContain('"msg":"shutting down"');
  const lines = gateway.output.trim().split('\n');
  expect(lines.length).toBeGreaterThan(1);
  for (const line of lines)
    expect(JSON.parse(line)).toEqual(expect.objectContaining({ msg: expect.any(String) }));
});

/** A gateway started in `dir` with some settings of its own, on ports of its own. */
async function spawnGateway(extraEnv: NodeJS.ProcessEnv): Promise<AppProcess> {
  const [apiPort, filesPort] = await Promise.all([freePort(), freePort()]);
  const child = spawn(process.execPath, [appScript('gateway')], {
    cwd: dir,
    env: { ...environment.env, PORT: String(apiPort), STORAGE_PORT: String(filesPort), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new AppProcess('gateway', child, `http://127.0.0.1:${apiPort}`);
}

it('says at once, in the same JSON lines, which setting names the database it cannot reach', async () => {
  const unreachable = await spawnGateway({ DATABASE_URL: MISSING_DATABASE_URL });
  await expectWaitingForMissingDatabase(unreachable);
  for (const line of unreachable.output.trim().split('\n'))
    expect(JSON.parse(line)).toEqual(expect.objectContaining({ msg: expect.any(String), app: 'gateway' }));
});

it('waits for Redis with one line per retry naming REDIS_URL, answering liveness but not serving, and starts once it is up', async () => {
  const redisPort = await freePort();
  const waiting = await spawnGateway({ REDIS_URL: `redis://127.0.0.1:${redisPort}`, LOG_LEVEL: 'info' });
  await expectWaitingForRedis(waiting, redisPort, {
    waiting: async () => {
      const live = await fetch(`${waiting.url}/health/live`);
      expect(live.status).toBe(200);
      // The orchestrator's readiness probe: not ready while only the starting server answers.
      expect((await fetch(`${waiting.url}/health/serving`)).status).toBe(503);
      const chat = await fetch(`${waiting.url}/chat?user_id=u`);
      expect(chat.status).toBe(503);
      expect(chat.headers.get('retry-after')).toBe('5');
      expect(await chat.json()).toEqual({
        detail: `Starting: waiting for Redis at REDIS_URL redis://127.0.0.1:${redisPort}`,
      });
    },
    started: async () => {
      await waiting.waitForOutput('gateway listening', 20000);
      expect((await fetch(`${waiting.url}/health/ready`)).status).toBe(200);
      expect((await fetch(`${waiting.url}/health/serving`)).status).toBe(200);
    },
  });
}, 60_000);

it('a worker started while PgBouncer holds every query waits, naming the settings, and starts once it answers', async () => {
  const bouncer = await PgBouncer.start(environment.databaseUrl);
  let worker: AppProcess | undefined;
  try {
    await bouncer.pause(environment.databaseUrl);
    const child = spawn(process.execPath, [appScript('worker')], {
      env: {
        ...environment.env,
        DATABASE_URL: bouncer.url(environment.databaseUrl),
        DATABASE_PREPARED_STATEMENTS: 'false',
        DATABASE_CONNECT_TIMEOUT_MS: '1000',
        WORKER_HEALTH_PORT: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker = new AppProcess('worker', child);
    const waiting = new RegExp(
      `cannot reach PostgreSQL at DATABASE_URL postgres://postgres@127\\.0\\.0\\.1:${bouncer.port}/[^:]+: ` +
        'no answer within 1000 ms \\(DATABASE_CONNECT_TIMEOUT_MS: raise it if PostgreSQL is only slow\\); retrying in 2 s',
    );
    await worker.waitForOutput(waiting, 20000);
    expect(worker.output).not.toContain('worker started');

    await bouncer.resume(environment.databaseUrl);
    await worker.waitForOutput('worker started', 30000);
    const retries = worker.output.split('\n').filter((line) => line.includes('cannot reach PostgreSQL'));
    for (const line of retries)
      expect(JSON.parse(line)).toMatchObject({ setting: 'DATABASE_URL', level: 40 });
  } finally {
    expect(await worker?.stop()).toBe(0);
    await bouncer.stop();
  }
}, 90_000);
