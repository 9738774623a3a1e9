// `npm start`: builds only when a source is newer than the last build, then runs the service. A full build takes
// tens of seconds and is not needed to restart an unchanged checkout.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..', '..');
const entry = join(root, 'dist', 'apps', 'local', 'src', 'main.js');
const SKIP = new Set(['node_modules', 'dist', '.git']);

function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const name of readdirSync(path)) {
    if (!SKIP.has(name)) latest = Math.max(latest, newest(join(path, name)));
  }
  return latest;
}

const built = statSync(entry, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const inputs = ['apps', 'libs', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
if (inputs.some((input) => newest(join(root, input)) > built)) {
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
// In this process, so signals sent to `npm start` reach the service's own handlers.
await import(pathToFileURL(entry).href);
