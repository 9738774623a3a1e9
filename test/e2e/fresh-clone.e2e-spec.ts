import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';

/**
 * A new user's first hour, run as written: a fresh clone of the committed tree, the README's set-up command
 * (`npm ci && npm start`, in the background until /health/ready answers), then the guide's quickstart script.
 * Only the port changes (a free one instead of 3000) and npm prefers its cache, so CI needs no network.
 */
const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const START_TIMEOUT_MS = 240_000;
let environment: TestEnvironment;
let dir: string;
let service: ChildProcess | undefined;
let output = '';
let port: number;
let env: NodeJS.ProcessEnv;

/** The first ```sh block after a heading, without comments. */
function shellBlock(markdown: string, heading: string): string {
  const section = markdown.slice(markdown.indexOf(heading));
  return /```sh\n([\s\S]*?)```/.exec(section)![1];
}

beforeAll(async () => {
  environment = await createTestEnvironment();
  dir = await mkdtemp(join(tmpdir(), 'parley-fresh-clone-'));
  const [storagePort, healthPort] = await Promise.all([freePort(), freePort()]);
  port = await freePort();
  env = {
    ...environment.env,
    PORT: String(port),
    STORAGE_PORT: String(storagePort),
    WORKER_HEALTH_PORT: String(healthPort),
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
  await run('git', ['clone', '--quiet', root, join(dir, 'parley')]);
}, 60_000);

afterAll(async () => {
  // The set-up command runs in its own process group: npm, the service and its gateway and worker stop together.
  if (service?.pid && service.exitCode === null) {
    const exited = new Promise((resolve) => service!.on('exit', resolve));
    process.kill(-service.pid, 'SIGTERM');
    await exited;
  }
  await environment?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it(
  'runs the README set-up and the guide quickstart as written',
  async () => {
    const clone = join(dir, 'parley');
    const readme = await readFile(join(clone, 'README.md'), 'utf8');
    const setUp = shellBlock(readme, '## Set-up').split('\n')[0].replace(/#.*/, '').trim();
    expect(setUp).toBe('npm ci && npm start');
    service = spawn('sh', ['-c', setUp], {
      cwd: clone,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    service.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (service.exitCode !== null) throw new Error(`the set-up command exited:\n${output}`);
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`the service was not ready in time:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    const guide = await readFile(join(clone, 'docs', 'guide.md'), 'utf8');
    const quickstart = shellBlock(guide, 'Then, in a second terminal').replaceAll(
      '127.0.0.1:3000',
      `127.0.0.1:${port}`,
    );
    const { stdout } = await run('bash', ['-e', '-o', 'pipefail', '-c', quickstart], { cwd: clone, env });
    const lines = stdout.trim().split('\n');
    const completed = JSON.parse(lines[lines.length - 2]) as { type: string; message: { content: string } };
    expect(completed).toMatchObject({ type: 'message.completed', message: { content: 'Hello there' } });
    expect(JSON.parse(lines[lines.length - 1])).toHaveLength(1);
  },
  START_TIMEOUT_MS + 60_000,
);
