/**
 * What Nest's request pipeline costs on the hot route (issue 45): `POST /chat` as the gateway serves it (global
 * ServiceTokenGuard, RedisAvailableGuard and AdmissionGuard, ApiValidationInterceptor, IdempotencyInterceptor,
 * parameter decorators, the handler's observable and Nest's reply) against a raw Fastify route on the same
 * Fastify instance that does the same work with plain calls: the same ApiKeyVerifier, the same Redis and
 * admission checks, the same Pydantic-rule validation of StartChatDto, the same StartThread with the same
 * arguments, the same status and JSON. Both share everything Fastify runs around a route (body parser, request id,
 * security headers, metrics, request logging), so their difference is Nest's own share. A second pair, GET
 * /health/live against a raw twin, shows the fixed part of that share on a route that does nothing.
 *
 * A child process builds the gateway with main.ts's own `buildGatewayApp` (apps/gateway/src/gateway-app.ts: its
 * module, adapter options, hooks, interceptor, body parsers, plugins), adds the raw twins before listening, and reports its CPU time over IPC; a
 * worker consumes the runs. Each run drives one route for BENCH_SECONDS with autocannon (BENCH_CONNECTIONS
 * keep-alive connections; POST /chat paced at BENCH_CHAT_RATE requests a second in all, the health pair
 * unpaced), alternating Nest and raw, BENCH_RUNS times; medians of the runs. Settings are the apps' defaults
 * (LOG_LEVEL info, as `npm start` runs them); the body carries no Idempotency-Key.
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/framework-overhead.js
 *
 * Needs PostgreSQL and Redis (DATABASE_URL's server, REDIS_URL): a database and a Redis prefix of its own, dropped
 * at the end.
 */
import 'reflect-metadata';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { ChildProcess, execFile, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { StartThread } from '@app/chat';
import { loadSettings } from '@app/config';
import {
  DependencyUnavailableError,
  InvalidInputError,
  modelSchema,
  nulIssue,
  StartChatDto,
  UnauthenticatedError,
  validateWithSchema,
  ValidationIssue,
} from '@app/contracts';
import { ApiKeyVerifier, credentialHeader, parseServiceTokenHeader } from '@app/identity';
import { startupLogger } from '@app/observability';
import { REDIS } from '@app/redis';
import { RunAdmission } from '../apps/gateway/src/admission/run-admission';
import { buildGatewayApp } from '../apps/gateway/src/gateway-app';
import { UnreadableBody } from '../apps/gateway/src/http/json-body';
import {
  benchNumbers,
  Cleanup,
  createBenchEnvironment,
  freePort,
  median,
  runBenchmark,
  sleep,
  waitFor,
} from './support';

const run = promisify(execFile);
const { RUNS, SECONDS, CONNECTIONS, CHAT_RATE } = benchNumbers({
  RUNS: 5,
  SECONDS: 5,
  CONNECTIONS: 8,
  CHAT_RATE: 120,
});

const RAW_CHAT = '/bench/raw-chat';
// Under /health/ as its twin, so that request logging leaves out both (its autoLogging ignores /health/*).
const RAW_LIVE = '/health/raw-live';

/** What the gateway child says over IPC: its port once listening, then its CPU time and responses on request. */
type ChildMessage = { port: number } | { cpuMicros: number; served: number };

/** The gateway as main.ts builds it, without the starting server and the wait for dependencies (both are up). */
async function createGateway(): Promise<{ app: NestFastifyApplication; fastify: FastifyInstance }> {
  const settings = loadSettings(process.env);
  const app = await buildGatewayApp(settings, startupLogger('gateway', settings));
  await app.init();
  return { app, fastify: app.getHttpAdapter().getInstance() };
}

/**
 * POST /chat's work without Nest: the checks its guards make, the validation its interceptor makes, the same use
 * case call, the same answer. Errors go to Fastify's own handler: the benchmark sends only valid requests.
 */
function addRawTwins(app: NestFastifyApplication, fastify: FastifyInstance): void {
  const verifier = app.get(ApiKeyVerifier);
  const redis = app.get<Redis>(REDIS);
  const admission = app.get(RunAdmission);
  const startThread = app.get(StartThread);
  const schema = modelSchema(StartChatDto);

  fastify.post(RAW_CHAT, async (request: FastifyRequest, reply: FastifyReply) => {
    const parsed = parseServiceTokenHeader(credentialHeader(request.headers));
    if (!parsed.ok) throw new UnauthenticatedError(parsed.reason);
    const key = await verifier.verify(parsed.secret);
    if (!key) throw new UnauthenticatedError('Invalid or revoked service token');
    const caller = { orgId: key.orgId, keyId: key.keyId, requestId: String(request.id) };
    if (redis.status !== 'ready') throw new DependencyUnavailableError('Redis is unavailable');
    admission.admitReply();
    if (request.body instanceof UnreadableBody) throw request.body.error;
    const issues: ValidationIssue[] = [];
    for (const [value, root] of [
      [request.params, 'path'],
      [request.query, 'query'],
    ] as const) {
      const nul = nulIssue(value, [root]);
      if (nul) issues.push(nul);
    }
    const body = validateWithSchema(schema, request.body, 'body');
    if (!body.ok) issues.push(...body.issues);
    if (issues.length > 0 || !body.ok) throw new InvalidInputError(issues);
    const thread = await startThread.execute(caller, body.value as StartChatDto, { idempotency: undefined });
    return reply.code(200).send(thread);
  });
  fastify.get(RAW_LIVE, async () => ({ status: 'ok' }));
}

/** Child process: the gateway with the raw twins on a free port; answers CPU readings over IPC. */
async function serve(): Promise<void> {
  const { app, fastify } = await createGateway();
  let served = 0;
  fastify.addHook('onResponse', async () => {
    served += 1;
  });
  addRawTwins(app, fastify);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  process.send!({ port } satisfies ChildMessage);
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuMicros: user + system, served } satisfies ChildMessage);
  });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

/** One run's figures for one route. */
interface Reading {
  cpuPerRequest: number;
  rps: number;
  p50: number;
}

interface Gateway {
  child: ChildProcess;
  url: string;
  cpu(): Promise<{ cpuMicros: number; served: number }>;
}

async function startGatewayChild(env: NodeJS.ProcessEnv): Promise<Gateway> {
  // Its stdout (a log line per request at info) is written as a deployed gateway writes it, and read by no one.
  const child = fork(__filename, ['serve'], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const { port } = await new Promise<{ port: number }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { port: number }));
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
  });
  const cpu = () =>
    new Promise<{ cpuMicros: number; served: number }>((resolve) => {
      child.once('message', (message) => resolve(message as { cpuMicros: number; served: number }));
      child.send('cpu');
    });
  return { child, url: `http://127.0.0.1:${port}`, cpu };
}

interface Target {
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Requests a second over all connections; unset, each connection sends its next request on an answer. */
  rate?: number;
}

/** One autocannon run against `target`, with the gateway's CPU time over exactly the requests it served. */
async function load(gateway: Gateway, target: Target): Promise<Reading> {
  const args = [
    require.resolve('autocannon/autocannon.js'),
    ...['-c', String(CONNECTIONS), '-d', String(SECONDS), '-m', target.method, '-j'],
    ...Object.entries(target.headers).flatMap(([name, value]) => ['-H', `${name}=${value}`]),
    ...(target.body === undefined ? [] : ['-b', target.body]),
    ...(target.rate === undefined ? [] : ['-R', String(target.rate)]),
  ];
  const before = await gateway.cpu();
  const { stdout } = await run(process.execPath, [...args, `${gateway.url}${target.path}`], {
    maxBuffer: 10 * 1024 * 1024,
  });
  const after = await gateway.cpu();
  const report = JSON.parse(stdout) as {
    requests: { average: number };
    latency: { p50: number };
    non2xx: number;
    errors: number;
    statusCodeStats: Record<string, { count: number }>;
  };
  if (report.non2xx > 0 || report.errors > 0) {
    const statuses = JSON.stringify(report.statusCodeStats);
    throw new Error(
      `${target.path}: ${report.non2xx} answers not 2xx (${statuses}), ${report.errors} errors`,
    );
  }
  return {
    cpuPerRequest: (after.cpuMicros - before.cpuMicros) / (after.served - before.served),
    rps: report.requests.average,
    p50: report.latency.p50,
  };
}

/** The keys of a JSON value at every depth, values aside: two answers of one route have the same shape. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value === null || typeof value !== 'object') return typeof value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]),
  );
}

/** Fails the benchmark unless the raw twin answers as the Nest route does (status, content type, JSON shape). */
async function requireSameAnswers(url: string, nest: Target, raw: Target): Promise<void> {
  const answer = async (target: Target) => {
    const response = await fetch(`${url}${target.path}`, {
      method: target.method,
      headers: target.headers,
      body: target.body,
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      shape: JSON.stringify(shapeOf(await response.json())),
    };
  };
  const [a, b] = [await answer(nest), await answer(raw)];
  if (a.status !== 200 || JSON.stringify(a) !== JSON.stringify(b))
    throw new Error(`${raw.path} answers unlike ${nest.path}:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
}

/** Waits until the worker has finished every reply the last run queued, so each run starts from an idle worker. */
async function workerIdle(database: Client): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await database.query<{ live: string }>(
        "SELECT count(*) AS live FROM messages WHERE status IN ('pending', 'running')",
      );
      return Number(rows[0].live) === 0;
    },
    'the worker finishing the queued replies',
    120_000,
  );
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const medianOf = (readings: Reading[], field: keyof Reading) => median(readings.map((r) => r[field]));
const runsOf = (readings: Reading[], field: keyof Reading, digits: number) =>
  readings.map((r) => fixed(r[field], digits)).join(', ');

function rows(pair: string, nest: Reading[], raw: Reading[]): string[] {
  const row = (route: string, readings: Reading[]) =>
    `| ${pair} | ${route} | ${fixed(medianOf(readings, 'cpuPerRequest'), 0)} (${runsOf(readings, 'cpuPerRequest', 0)}) | ` +
    `${fixed(medianOf(readings, 'rps'), 0)} (${runsOf(readings, 'rps', 0)}) | ${fixed(medianOf(readings, 'p50'), 1)} |`;
  const cpuShare = medianOf(nest, 'cpuPerRequest') - medianOf(raw, 'cpuPerRequest');
  const perRunShare = nest.map((reading, index) => reading.cpuPerRequest - raw[index].cpuPerRequest);
  return [
    row('Nest', nest),
    row('raw Fastify', raw),
    `| ${pair} | **Nest − raw** | **${fixed(cpuShare, 0)}** (per run: ${perRunShare.map((v) => fixed(v, 0)).join(', ')}) | | |`,
  ];
}

const cleanups: Cleanup[] = [];

async function measure(): Promise<void> {
  const environment = await createBenchEnvironment({ LOG_LEVEL: 'info' });
  cleanups.push(() => environment.dispose());
  const { key } = await environment.admin(['keys:create', '--org', 'bench']);
  const { id: agentId } = await environment.admin(['agents:create', '--org', 'bench', '--name', 'bench']);
  await environment.startWorker();
  // A storage host port of its own, as support's startGateway gives: another gateway may hold the default.
  const gateway = await startGatewayChild({ ...environment.env, STORAGE_PORT: String(await freePort()) });
  cleanups.push(async () => {
    if (gateway.child.exitCode !== null) return;
    const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
    gateway.child.kill('SIGTERM');
    await exited;
  });
  const database = new Client({ connectionString: environment.databaseUrl });
  await database.connect();
  cleanups.push(() => database.end());

  const auth = { authorization: `Bearer ${key}` };
  const chatBody = JSON.stringify({
    message: { content: '/say hi' },
    options: { agent_id: agentId, user_id: 'bench' },
  });
  const post = (path: string): Target => ({
    path,
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: chatBody,
    // Paced: unpaced, the twins can queue runs faster than the worker finishes them, and admission then refuses
    // them. At one rate both twins also work under the same load (batching, other processes).
    rate: CHAT_RATE,
  });
  const chat = { nest: post('/chat'), raw: post(RAW_CHAT) };
  const live = {
    nest: { path: '/health/live', method: 'GET', headers: auth } as Target,
    raw: { path: RAW_LIVE, method: 'GET', headers: auth } as Target,
  };
  await requireSameAnswers(gateway.url, chat.nest, chat.raw);
  await requireSameAnswers(gateway.url, live.nest, live.raw);

  // Warm-up: JIT, pools, prepared plans, on both routes of each pair.
  for (const target of [chat.nest, chat.raw, live.nest, live.raw]) await load(gateway, target);
  await workerIdle(database);

  const readings = {
    chatNest: [] as Reading[],
    chatRaw: [] as Reading[],
    liveNest: [] as Reading[],
    liveRaw: [] as Reading[],
  };
  const loadBefore = loadavg()[0];
  for (let index = 0; index < RUNS; index++) {
    // Which twin goes first alternates, so neither always meets a fresher or a busier machine.
    const order = index % 2 === 0 ? (['Nest', 'Raw'] as const) : (['Raw', 'Nest'] as const);
    for (const side of order) {
      readings[`chat${side}`].push(await load(gateway, side === 'Nest' ? chat.nest : chat.raw));
      await workerIdle(database);
    }
    for (const side of order)
      readings[`live${side}`].push(await load(gateway, side === 'Nest' ? live.nest : live.raw));
    await sleep(500);
  }

  const lines = [
    `autocannon -c ${CONNECTIONS} -d ${SECONDS} (POST /chat with -R ${CHAT_RATE}), ${RUNS} runs alternating the twins; ` +
      `load average ${fixed(loadBefore, 2)} → ${fixed(loadavg()[0], 2)}`,
    '',
    '| pair | route | gateway CPU µs per request, median (runs) | requests/s, median (runs) | median latency ms |',
    '|---|---|---|---|---|',
    ...rows('POST /chat', readings.chatNest, readings.chatRaw),
    ...rows('GET /health/live', readings.liveNest, readings.liveRaw),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[2] === 'serve') {
  serve().catch((error: Error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
} else {
  runBenchmark(cleanups, measure);
}
