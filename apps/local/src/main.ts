import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * `npm start`: the whole service on one machine. Creates the database and applies migrations, then runs one
 * gateway and one worker with the same environment, and stops both when either stops or on Ctrl-C.
 */
const dist = join(__dirname, '..', '..');
const run = (script: string): ChildProcess =>
  spawn(process.execPath, [join(dist, script)], { stdio: 'inherit', env: process.env });

function waitFor(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}

async function main(): Promise<void> {
  const migrated = await waitFor(run('admin/src/migrate.js'));
  if (migrated !== 0) process.exit(migrated);
  const children = [run('gateway/src/main.js'), run('worker/src/main.js')];
  const exits = children.map(waitFor);
  const stop = () => children.forEach((child) => child.exitCode === null && child.kill('SIGTERM'));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const code = await Promise.race(exits);
  stop();
  await Promise.all(exits);
  process.exit(code);
}

void main();
