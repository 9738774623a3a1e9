import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * `npm start`: the whole service on one machine. Creates the database and applies migrations, then runs one
 * gateway and one worker with the same environment, and stops both when either stops (saying which, with a
 * non-zero exit) or on Ctrl-C.
 */
const dist = join(__dirname, '..', '..');
const run = (script: string): ChildProcess =>
  spawn(process.execPath, [join(dist, script)], { stdio: 'inherit', env: process.env });

interface Exit {
  name: string;
  code: number;
  signal: NodeJS.Signals | null;
}

function waitFor(name: string, child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve({ name, code: code ?? 1, signal })),
  );
}

async function main(): Promise<void> {
  const migrated = await waitFor('migrate', run('admin/src/migrate.js'));
  if (migrated.code !== 0) process.exit(migrated.code);
  const children = [run('gateway/src/main.js'), run('worker/src/main.js')];
  const exits = [waitFor('gateway', children[0]), waitFor('worker', children[1])];
  let stopping = false;
  const stop = () => {
    stopping = true;
    children.forEach((child) => child.exitCode === null && child.kill('SIGTERM'));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const first = await Promise.race(exits);
  const unasked = !stopping;
  if (unasked) {
    // A gateway without its worker would take chats that never get an answer: stop both, and say why.
    const how = first.signal ? `was killed (${first.signal})` : `exited with code ${first.code}`;
    const other = first.name === 'gateway' ? 'worker' : 'gateway';
    process.stderr.write(`npm start: the ${first.name} ${how}; stopping the ${other} too\n`);
  }
  stop();
  await Promise.all(exits);
  // Unasked, a stop is a failure even when the process that ended said 0.
  process.exit(unasked ? first.code || 1 : first.code);
}

void main();
