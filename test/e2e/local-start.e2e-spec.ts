import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AppProcess, freePort } from '../support/processes';
import { createTestEnvironment, DIST, TestEnvironment } from '../support/test-environment';

/** `npm start` (apps/local) runs a gateway and a worker: both or neither, and it says which one ended. */
let environment: TestEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment();
});

afterAll(async () => {
  await environment?.dispose();
});

it('stops the gateway and exits non-zero, naming the worker, when its worker dies', async () => {
  const [port, storagePort, healthPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const child = spawn(process.execPath, [join(DIST, 'apps', 'local', 'src', 'main.js')], {
    env: {
      ...environment.env,
      PORT: String(port),
      STORAGE_PORT: String(storagePort),
      WORKER_HEALTH_PORT: String(healthPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const local = new AppProcess('gateway', child, `http://127.0.0.1:${port}`);
  try {
    await local.waitForOutput('gateway listening', 30000);
    await local.waitForOutput('worker started', 30000);
    const { stdout } = await promisify(execFile)('pgrep', [
      '-P',
      String(child.pid),
      '-f',
      'worker/src/main.js',
    ]);
    process.kill(Number(stdout.trim()), 'SIGKILL');
    expect(await local.waitForExit()).toBe(1);
  } finally {
    await local.kill();
  }
  expect(local.output).toContain('npm start: the worker was killed (SIGKILL); stopping the gateway too');
  await expect(fetch(`${local.url}/health/live`)).rejects.toThrow();
}, 90_000);
