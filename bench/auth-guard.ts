/**
 * What the service-token guard costs a request (issue 3: "well under a millisecond at the median").
 *
 * 1. Micro-benchmark, in this process: `ServiceTokenGuard.canActivate` (header parsing, SHA-256 of the secret,
 *    cache lookup, constant-time compare) for a key already cached, i.e. every request but the first of a key
 *    in each KEY_CACHE_TTL_MS window. Median ns per call over several runs.
 * 2. End to end: a child process runs a Nest + Fastify app with the gateway's own AuthModule (guard, verifier on
 *    PostgreSQL and Redis) and two twin routes, identical but for `@Public()`. Measured from this process with
 *    a sequential keep-alive client (median latency, µs) and with autocannon (throughput), alternating the
 *    twins for several runs.
 *
 * Needs PostgreSQL and Redis (DATABASE_URL's server, REDIS_URL) and a build:
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/auth-guard.js
 *
 * (NODE_PATH only when the build is outside the checkout.) BENCH_RUNS (default 5), BENCH_REQUESTS (default
 * 3000 per run of the sequential client), BENCH_SECONDS (default 5 per autocannon run).
 */
import 'reflect-metadata';
import { Controller, ExecutionContext, Get, Logger, Module } from '@nestjs/common';
import { NestFactory, Reflector } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { execFile, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent, get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { loadSettings, Settings, SettingsModule } from '@app/config';
import { ApiKeyVerifier, hashKeySecret, IdentityModule, CreateKey } from '@app/identity';
import {
  ApiKeyRepository,
  dataSourceOptions,
  ensureDatabase,
  PersistenceModule,
  runMigrations,
} from '@app/persistence';
import { RedisModule } from '@app/redis';
import { AuthModule } from '../apps/gateway/src/auth/auth.module';
import { Public } from '../apps/gateway/src/auth/public.decorator';
import { ServiceTokenGuard } from '../apps/gateway/src/auth/service-token.guard';
import { benchNumbers, dropBenchDatabase } from './support';

const run = promisify(execFile);
const { RUNS, REQUESTS, SECONDS } = benchNumbers({ RUNS: 5, REQUESTS: 3000, SECONDS: 5 });
const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const fixed = (value: number, digits = 1) => value.toFixed(digits);

/** The twins: the same work, one behind the global guard, one @Public(). */
@Controller('bench')
class TwinController {
  @Public()
  @Get('public')
  open(): { status: string } {
    return { status: 'ok' };
  }

  @Get('guarded')
  guarded(): { status: string } {
    return { status: 'ok' };
  }
}

@Module({ controllers: [TwinController] })
class TwinModule {}

/** Child process: the twin app on a free port; tells the parent its port and a fresh key. */
async function serve(): Promise<void> {
  const settings = loadSettings(process.env);
  const app = await NestFactory.create<NestFastifyApplication>(
    {
      module: class BenchAppModule {},
      imports: [
        SettingsModule.forRoot(settings),
        PersistenceModule,
        RedisModule.forRoot('requests'),
        IdentityModule,
        AuthModule,
        TwinModule,
      ],
    },
    new FastifyAdapter(),
    { logger: false },
  );
  await app.listen(0, '127.0.0.1');
  const { key } = await app.get(CreateKey).execute({ type: 'admin', id: 'bench' }, 'bench');
  const { port } = app.getHttpServer().address() as { port: number };
  process.send!({ port, key });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

/** Median ns per guard call on a cached key, over RUNS runs of 100 000 calls. */
async function microBenchmark(): Promise<number[]> {
  const settings = Object.assign(new Settings(), { keyCacheTtlMs: 60_000 });
  const secret = `sk-svc-${randomBytes(32).toString('base64url')}`;
  const stored = { id: 'key-id', orgId: 'org-id', keyHash: hashKeySecret(secret) };
  const keys = { findActiveByHash: async () => stored } as unknown as ApiKeyRepository;
  const guard = new ServiceTokenGuard(new Reflector(), new ApiKeyVerifier(keys, settings), 'bench-secret');
  const request = { headers: { 'x-service-token': `Bearer ${secret}` }, id: 'req' };
  const context = {
    getHandler: () => TwinController.prototype.guarded,
    getClass: () => TwinController,
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
  await guard.canActivate(context); // fills the cache
  const perCall: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const calls = 100_000;
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await guard.canActivate(context);
    perCall.push(Number(process.hrtime.bigint() - started) / calls);
  }
  return perCall;
}

/** Median latency (µs) of REQUESTS sequential GETs on one keep-alive connection. */
async function sequentialMedian(url: string, headers: Record<string, string>): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      get(url, { agent, headers }, (response) => {
        if (response.statusCode !== 200) reject(new Error(`${url}: ${response.statusCode}`));
        response.resume();
        response.on('end', () => resolve((performance.now() - started) * 1000));
      }).on('error', reject);
    });
  for (let i = 0; i < 200; i++) await once(); // warm-up
  const latencies: number[] = [];
  for (let i = 0; i < REQUESTS; i++) latencies.push(await once());
  agent.destroy();
  return median(latencies);
}

/** Requests a second with autocannon (10 connections, SECONDS), as its JSON report gives them. */
async function throughput(
  url: string,
  headers: Record<string, string>,
): Promise<{ rps: number; mean: number }> {
  const args = [require.resolve('autocannon/autocannon.js'), '-c', '10', '-d', String(SECONDS), '-j'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  const { stdout } = await run(process.execPath, [...args, url], { maxBuffer: 10 * 1024 * 1024 });
  const report = JSON.parse(stdout) as {
    requests: { average: number };
    latency: { average: number };
    non2xx: number;
  };
  if (report.non2xx > 0) throw new Error(`${url}: ${report.non2xx} answers were not 2xx`);
  return { rps: report.requests.average, mean: report.latency.average };
}

async function main(): Promise<void> {
  Logger.overrideLogger(false);
  const micro = await microBenchmark();

  const name = `parley_bench_${randomBytes(4).toString('hex')}`;
  const databaseUrl = Object.assign(new URL(BASE_DATABASE_URL), { pathname: `/${name}` }).toString();
  await ensureDatabase(databaseUrl);
  const dataSource = await new DataSource(dataSourceOptions({ databaseUrl }, 2)).initialize();
  await runMigrations(dataSource);
  await dataSource.destroy();

  const child = fork(__filename, ['serve'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: name, LOG_LEVEL: 'silent' },
  });
  try {
    const { port, key } = await new Promise<{ port: number; key: string }>((resolve, reject) => {
      child.once('message', (message) => resolve(message as { port: number; key: string }));
      child.once('exit', (code) => reject(new Error(`twin app exited with ${code}`)));
    });
    const base = `http://127.0.0.1:${port}/bench`;
    const token = { 'x-service-token': key };

    const latency = { public: [] as number[], guarded: [] as number[] };
    const rps = { public: [] as number[], guarded: [] as number[] };
    for (let r = 0; r < RUNS; r++) {
      latency.public.push(await sequentialMedian(`${base}/public`, {}));
      latency.guarded.push(await sequentialMedian(`${base}/guarded`, token));
    }
    for (let r = 0; r < Math.min(RUNS, 3); r++) {
      rps.public.push((await throughput(`${base}/public`, {})).rps);
      rps.guarded.push((await throughput(`${base}/guarded`, token)).rps);
    }

    const lines = [
      `guard on a cached key, in process: median ${fixed(median(micro), 0)} ns per call (runs: ${micro.map((v) => fixed(v, 0)).join(', ')})`,
      `sequential median latency, public twin: ${fixed(median(latency.public))} µs (runs: ${latency.public.map((v) => fixed(v)).join(', ')})`,
      `sequential median latency, guarded twin: ${fixed(median(latency.guarded))} µs (runs: ${latency.guarded.map((v) => fixed(v)).join(', ')})`,
      `difference of the medians: ${fixed(median(latency.guarded) - median(latency.public))} µs`,
      `autocannon -c 10 -d ${SECONDS}, public twin: ${fixed(median(rps.public), 0)} req/s (runs: ${rps.public.map((v) => fixed(v, 0)).join(', ')})`,
      `autocannon -c 10 -d ${SECONDS}, guarded twin: ${fixed(median(rps.guarded), 0)} req/s (runs: ${rps.guarded.map((v) => fixed(v, 0)).join(', ')})`,
      `server time per request, guarded minus public (1/rps): ${fixed((1 / median(rps.guarded) - 1 / median(rps.public)) * 1e6)} µs`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await dropBenchDatabase(name);
  }
}

if (process.argv[2] === 'serve') {
  void serve();
} else {
  main().catch((error: Error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
}
