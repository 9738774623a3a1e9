import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { useDeployment } from '../support/deployment';

/**
 * The client library as another project gets it: packed with `npm pack` and installed from the tarball, and
 * installed by path, each in its own temporary project, then the README's example run there as written against
 * a real gateway and worker. It has no runtime dependency, so both installs work offline.
 */
const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const deployment = useDeployment({ workers: 1, agent: true, timeoutMs: 120_000 });
let dir: string;
let example: string;
let exampleEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  exampleEnv = {
    PATH: process.env.PATH,
    PARLEY_URL: deployment.url,
    PARLEY_TOKEN: deployment.org.key,
    PARLEY_AGENT: deployment.agentId,
  };
  dir = await mkdtemp(join(tmpdir(), 'parley-client-package-'));
  const readme = await readFile(join(root, 'libs', 'client', 'README.md'), 'utf8');
  example = /```js\n([\s\S]*?)```/.exec(readme)![1];
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A fresh project with the package installed from `spec`. */
async function projectWith(name: string, spec: string): Promise<string> {
  const project = join(dir, name);
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name, private: true }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', spec], { cwd: project });
  return project;
}

/** A fresh project with the package installed from `spec`, running the README example; its output lines. */
async function runExampleWith(name: string, spec: string): Promise<string[]> {
  const project = await projectWith(name, spec);
  await writeFile(join(project, 'example.mjs'), example);
  const { stdout } = await run(process.execPath, ['example.mjs'], { cwd: project, env: exampleEnv });
  return stdout.trim().split('\n');
}

const EXPECTED = [
  'success It is noon.',
  'follow-up success',
  '1 4',
  'Time zones',
  "404 { detail: 'Thread not found' }",
  "422 [ 'string_too_long' ]",
  'Parley service unreachable at http://127.0.0.1:39999: connect ECONNREFUSED 127.0.0.1:39999',
];

it('installs from an npm pack tarball and runs the README example', async () => {
  const { stdout } = await run('npm', ['pack', '-w', '@parley/client', '--json', '--pack-destination', dir], {
    cwd: root,
  });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  expect(packed.files.map((file) => file.path)).toEqual(
    expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'README.md', 'package.json']),
  );
  expect(await runExampleWith('by-tarball', join(dir, packed.filename))).toEqual(EXPECTED);
}, 120_000);

it('installs by path and runs the README example', async () => {
  expect(await runExampleWith('by-path', join(root, 'libs', 'client'))).toEqual(EXPECTED);
}, 120_000);

it('compiles the README example as strict TypeScript, with typed error bodies and no non-null assertion', async () => {
  expect(example).not.toMatch(/\w!(\.|,|\)|\s)/);
  const project = await projectWith('typed', join(root, 'libs', 'client'));
  await writeFile(join(project, 'example.mts'), example);
  const compilerOptions = {
    noEmit: true,
    strict: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')],
  };
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions, files: ['example.mts'] }),
  );
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const { stdout } = await run(process.execPath, [tsc, '-p', project]).catch((error: { stdout: string }) => ({
    stdout: error.stdout,
  }));
  expect(stdout).toBe('');
}, 120_000);
