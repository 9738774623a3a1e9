import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { ENV, loadSettings } from '@app/config';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');
const PARLEY_SERVICES = ['gateway', 'worker', 'migrate', 'admin'];

/** The stack's wiring, which compose fixes instead of taking from `.env` (a local .env points at 127.0.0.1). */
const WIRED_BY_COMPOSE = [
  'DATABASE_URL',
  'DATABASE_MIGRATION_URL',
  'REDIS_URL',
  'HOST',
  'PORT',
  'STORAGE_PORT',
  'WORKER_HEALTH_PORT',
  'MIGRATE_ON_START',
  'STORAGE_DRIVER',
  'STORAGE_DIR',
  'S3_ENDPOINT',
  'S3_PUBLIC_ENDPOINT',
  'S3_BUCKET',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
  'PUBLIC_BASE_URL',
];

type Environment = Record<string, string>;

/** Defaults the stack chooses differently: five processes share PostgreSQL's 200 connections. */
const COMPOSE_DEFAULTS: Environment = { DATABASE_POOL_SIZE: '10' };

/** The compose file as the compose CLI resolves it in a project folder holding `dotEnv` (if given) as `.env`. */
async function resolvedEnvironments(dotEnv?: string): Promise<Record<string, Environment>> {
  const project = await mkdtemp(join(tmpdir(), 'parley-compose-'));
  try {
    await copyFile(join(ROOT, 'docker-compose.yml'), join(project, 'docker-compose.yml'));
    if (dotEnv !== undefined) await writeFile(join(project, '.env'), dotEnv);
    // A clean environment: only what compose needs to run, so the host's variables cannot leak into the check.
    const { stdout } = await run('docker-compose', ['config'], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: project },
      timeout: 60000,
    });
    const services = parse(stdout).services as Record<string, { environment: Environment }>;
    return Object.fromEntries(PARLEY_SERVICES.map((name) => [name, services[name].environment]));
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}

async function exampleDefaults(): Promise<Environment> {
  const lines = (await readFile(join(ROOT, '.env.example'), 'utf8')).split('\n');
  return Object.fromEntries(
    lines
      .filter((line) => /^[A-Z0-9_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('docker-compose.yml', () => {
  it('gives every Parley container each setting the stack does not wire, with .env.example defaults', async () => {
    const [environments, defaults] = await Promise.all([resolvedEnvironments(), exampleDefaults()]);
    const userSettings = Object.values(ENV).filter((name) => !WIRED_BY_COMPOSE.includes(name));
    for (const service of PARLEY_SERVICES) {
      const environment = environments[service];
      for (const name of userSettings) {
        expect([service, name, environment[name]]).toEqual([
          service,
          name,
          COMPOSE_DEFAULTS[name] ?? defaults[name] ?? '',
        ]);
      }
      // What the containers get is a valid configuration as it stands.
      expect(() => loadSettings(environment)).not.toThrow();
      expect(environment.DATABASE_URL).toBe('postgres://postgres:parley@postgres:5432/agents');
      expect(environment.STORAGE_DRIVER).toBe('s3');
    }
  });

  it('passes what a user writes in .env to every Parley container, but keeps the stack wiring', async () => {
    const environments = await resolvedEnvironments(
      [
        'OPENAI_API_KEY=sk-from-dot-env',
        'LOG_LEVEL=debug',
        'AGENT_RUN_CONCURRENCY=4',
        'DATABASE_URL=postgres://postgres@127.0.0.1:5432/agents',
        'PORT=4000',
        'DATABASE_POOL_SIZE=5',
      ].join('\n'),
    );
    for (const service of PARLEY_SERVICES) {
      const environment = environments[service];
      expect(environment.OPENAI_API_KEY).toBe('sk-from-dot-env');
      expect(environment.LOG_LEVEL).toBe('debug');
      expect(environment.AGENT_RUN_CONCURRENCY).toBe('4');
      expect(environment.DATABASE_URL).toBe('postgres://postgres:parley@postgres:5432/agents');
      expect(environment.PORT).toBe('3000');
      expect(environment.DATABASE_POOL_SIZE).toBe('5');
      expect(loadSettings(environment).agentRunConcurrency).toBe(4);
    }
  });
});
