import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppProcess, freePort } from '../support/processes';
import { appScript, createTestEnvironment, TestEnvironment } from '../support/test-environment';

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

it('says at once, in the same JSON lines, that it cannot reach the database', async () => {
  const [apiPort, filesPort] = await Promise.all([freePort(), freePort()]);
  const child = spawn(process.execPath, [appScript('gateway')], {
    cwd: dir,
    env: {
      ...environment.env,
      PORT: String(apiPort),
      STORAGE_PORT: String(filesPort),
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/parley_no_such_database',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const unreachable = new AppProcess('gateway', child, `http://127.0.0.1:${apiPort}`);
  try {
    // Within the first retry, not after TypeORM's nine (about 30 s).
    await unreachable.waitForOutput('Unable to connect to the database', 5000);
    await unreachable.waitForOutput('parley_no_such_database\\" does not exist', 5000);
  } finally {
    await unreachable.stop();
  }
  for (const line of unreachable.output.trim().split('\n'))
    expect(JSON.parse(line)).toEqual(expect.objectContaining({ msg: expect.any(String), app: 'gateway' }));
});
