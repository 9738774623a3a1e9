/**
 * The paced workload on a deployment as the issue draws it: 2 gateways and 2 workers reaching PostgreSQL through
 * PgBouncer (transaction mode), on a single redis-server and on Redis Clusters of 1, 2 and 3 masters (the last
 * with a replica each), one deployment after the other in the same minutes. BENCH_CLIENTS clients, each in a loop
 * of conversations (`POST /chat` with `/sleep 40` and a 100-word `/say`, the stream read to `message.completed`
 * and its text checked), starting spread over one reply's time, alternating between the gateways. Each round is
 * BENCH_SECONDS long; reported: conversations/s, first delta p50/p99, CPU ms per conversation by component (both
 * gateways, both workers, PostgreSQL, PgBouncer, and each Redis node: its process's CPU from /proc), medians of
 * BENCH_ROUNDS rounds. Then, on the 3-master cluster, one round in which PgBouncer is SIGKILLed and started again
 * on its port 3 s later: every accepted reply must complete; POSTs refused meanwhile are counted and retried, and
 * the time from the restart to the first accepted POST is the time to recover.
 */
import { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { PgBouncer } from '../test/support/pgbouncer';
import { RedisCluster } from '../test/support/redis-cluster';
import { readReply, Target } from './conversation-client';
import { PrivatePostgres, PrivateRedis } from './private-stores';
import { treeCpuMs } from './proc-cpu';
import {
  BenchEnvironment,
  createBenchEnvironment,
  median,
  percentile,
  passedSettings,
  sleep,
  benchNumbers,
} from './support';

const { CLIENTS, SECONDS, ROUNDS } = benchNumbers({ CLIENTS: 100, SECONDS: 20, ROUNDS: 3 });
const WORDS = 100;
const SLEEP_MS = 40;
const EXPECTED = Array.from({ length: WORDS }, (_, i) => `word${i}`).join(' ');
const CONTENT = `/sleep ${SLEEP_MS}\n/say ${EXPECTED}`;

/** A deployment's Redis: a single server, or a cluster of `masters` (with a replica each when `replicas`). */
type RedisShape = { name: string; masters: number; replicas: number } | { name: string; single: true };
const SHAPES: RedisShape[] = [
  { name: 'single Redis', single: true },
  { name: 'cluster, 1 master', masters: 1, replicas: 0 },
  { name: 'cluster, 2 masters', masters: 2, replicas: 0 },
  { name: 'cluster, 3 masters + 3 replicas', masters: 3, replicas: 1 },
];

interface Deployment {
  targets: Target[];
  /** Component → process ids whose CPU (with their children's) is charged to it. */
  components: Record<string, number[]>;
  /** SIGKILLs PgBouncer, and starts it again on its port `downMs` later. */
  restartBouncer(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

interface Round {
  perSecond: number;
  firstDeltaMs: number[];
  cpuPerConversation: Record<string, number>;
}

async function deploy(shape: RedisShape, postgres: PrivatePostgres): Promise<Deployment> {
  const stops: (() => Promise<unknown>)[] = [];
  let redisUrl: string;
  const redisNodes: Record<string, number[]> = {};
  if ('single' in shape) {
    const redis = await PrivateRedis.start();
    stops.push(() => redis.dispose());
    redisUrl = redis.url;
    redisNodes['redis'] = [redis.pid];
  } else {
    const cluster = await RedisCluster.start({ masters: shape.masters, replicas: shape.replicas });
    stops.push(() => cluster.stop());
    redisUrl = cluster.url;
    const masters = await cluster.masters();
    cluster.ports.forEach((port, index) => {
      redisNodes[`redis ${masters.includes(port) ? 'master' : 'replica'} :${port}`] = [cluster.pids[index]];
    });
  }
  const environment: BenchEnvironment = await createBenchEnvironment(
    { LOG_LEVEL: 'info', ...passedSettings() },
    { databaseUrl: postgres.url, redisUrl },
  );
  stops.unshift(() => environment.dispose());
  const pool = [{ name: environment.name, database: environment.name, poolSize: 20 }];
  let bouncer = await PgBouncer.start(postgres.url, pool);
  stops.push(() => bouncer.stop());
  const throughBouncer = {
    DATABASE_URL: bouncer.url(environment.databaseUrl),
    DATABASE_PREPARED_STATEMENTS: 'false',
    DATABASE_POOL_SIZE: '10',
  };
  const { key } = await environment.admin(['keys:create', '--org', 'bench']);
  const { id: agentId } = await environment.admin(['agents:create', '--org', 'bench', '--name', 'bench']);
  const gateways = [
    await environment.startGateway(throughBouncer),
    await environment.startGateway(throughBouncer),
  ];
  const workers: ChildProcess[] = [
    await environment.startWorker(throughBouncer),
    await environment.startWorker(throughBouncer),
  ];
  return {
    targets: gateways.map(({ url }) => ({ url, key, agentId })),
    components: {
      gateways: gateways.map(({ child }) => child.pid!),
      workers: workers.map((child) => child.pid!),
      postgres: [postgres.pid],
      pgbouncer: [bouncer.pid], // the restart round does not report CPU
      ...redisNodes,
    },
    restartBouncer: async (downMs) => {
      await bouncer.kill();
      await sleep(downMs);
      const killed = bouncer;
      bouncer = await PgBouncer.start(postgres.url, pool, killed.port);
      await killed.stop();
    },
    stop: async () => {
      for (const stop of stops) await stop().catch(() => undefined);
    },
  };
}

const cpuOf = (components: Record<string, number[]>) =>
  Object.fromEntries(
    Object.entries(components).map(([name, pids]) => [
      name,
      pids.reduce((sum, pid) => sum + treeCpuMs(pid), 0),
    ]),
  );

/**
 * One conversation that survives a PgBouncer restart as a client would: a refused POST is retried after 200 ms (and
 * counted), a stream cut is read again. Returns the first delta's time, or null when the round ended first.
 */
async function converseRetrying(
  target: Target,
  until: number,
  refusals: Record<string, number>,
  onAccepted: () => void,
): Promise<number | null> {
  const started = performance.now();
  for (;;) {
    if (performance.now() > until) return null;
    const posted = await fetch(`${target.url}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': target.key },
      body: JSON.stringify({
        message: { content: CONTENT },
        options: { agent_id: target.agentId, user_id: 'b' },
      }),
    }).catch(() => null);
    if (posted?.status === 200) {
      onAccepted();
      const replyId = ((await posted.json()) as { messages: { id: string }[] }).messages[1].id;
      for (let attempt = 0; ; attempt += 1) {
        try {
          return (await readReply(target, replyId, started, EXPECTED)).firstDeltaMs;
        } catch (error) {
          if (attempt >= 20) throw error;
          await sleep(500);
        }
      }
    }
    const status = String(posted?.status ?? 'network error');
    refusals[status] = (refusals[status] ?? 0) + 1;
    await sleep(200);
  }
}

/** BENCH_SECONDS of the paced load; `during` runs beside it (a fault). */
async function round(deployment: Deployment, during?: (startedAt: number) => Promise<void>) {
  const firstDeltaMs: number[] = [];
  const refusals: Record<string, number> = {};
  const acceptedAt: number[] = [];
  const before = cpuOf(deployment.components);
  const started = performance.now();
  const until = started + SECONDS * 1000;
  const replySeconds = (WORDS * SLEEP_MS) / 1000;
  const fault = during?.(started);
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      await sleep((client / CLIENTS) * replySeconds * 1000);
      const target = deployment.targets[client % deployment.targets.length];
      while (performance.now() < until) {
        const firstDelta = await converseRetrying(target, until, refusals, () =>
          acceptedAt.push(performance.now()),
        );
        if (firstDelta !== null) firstDeltaMs.push(firstDelta);
      }
    }),
  );
  await fault;
  const seconds = (performance.now() - started) / 1000;
  const after = cpuOf(deployment.components);
  const cpuPerConversation = Object.fromEntries(
    Object.keys(before).map((name) => [name, (after[name] - before[name]) / firstDeltaMs.length]),
  );
  return {
    perSecond: firstDeltaMs.length / seconds,
    firstDeltaMs,
    cpuPerConversation,
    acceptedAt,
    completed: firstDeltaMs.length,
    refusals,
  };
}

const fixed = (value: number) => value.toFixed(1);

function row(shape: RedisShape, rounds: Round[]): string {
  const rates = rounds.map((r) => r.perSecond);
  const middle = rounds[rates.indexOf(median(rates))];
  const names = Object.keys(rounds[0].cpuPerConversation);
  const cpu = (name: string) => median(rounds.map((r) => r.cpuPerConversation[name]));
  const total = names.reduce((sum, name) => sum + cpu(name), 0);
  const redis = names.filter((name) => name.startsWith('redis'));
  return (
    `| ${shape.name} | ${fixed(median(rates))} (${rates.map(fixed).join(', ')}) | ` +
    `${median(middle.firstDeltaMs).toFixed(0)} / ${percentile(middle.firstDeltaMs, 99).toFixed(0)} | ` +
    `${fixed(total)} | ${fixed(cpu('gateways'))} | ${fixed(cpu('workers'))} | ${fixed(cpu('postgres'))} | ` +
    `${fixed(cpu('pgbouncer'))} | ${fixed(redis.reduce((sum, name) => sum + cpu(name), 0))} = ` +
    `${redis.map((name) => `${fixed(cpu(name))} (${name.replace('redis ', '')})`).join(' + ')} |`
  );
}

export async function measurePacedDeployments(): Promise<void> {
  const postgres = await PrivatePostgres.start({ statements: false });
  try {
    const rows: string[] = [];
    for (const shape of SHAPES) {
      const deployment = await deploy(shape, postgres);
      try {
        await round(deployment); // warm-up: JIT, pools
        const rounds: Round[] = [];
        for (let index = 0; index < ROUNDS; index += 1) {
          rounds.push(await round(deployment));
          console.log(`${shape.name}, round ${index + 1}: ${fixed(rounds[index].perSecond)}/s`);
        }
        rows.push(row(shape, rounds));
        if (shape === SHAPES[SHAPES.length - 1]) await pgbouncerRestart(deployment);
      } finally {
        await deployment.stop();
      }
    }
    console.log(
      `\n${CLIENTS} clients, ${SECONDS} s rounds, medians of ${ROUNDS}; 2 gateways + 2 workers through PgBouncer\n` +
        '| Redis | conversations/s (rounds) | first delta p50 / p99 ms | CPU ms per conversation: all | ' +
        'gateways | workers | PostgreSQL | PgBouncer | Redis: all = each node |\n' +
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const line of rows) console.log(line);
  } finally {
    await postgres.dispose();
  }
}

/** One round with PgBouncer SIGKILLed 5 s in and started again on its port 3 s later. */
async function pgbouncerRestart(deployment: Deployment): Promise<void> {
  let killedAt = 0;
  let restartedAt = 0;
  const result = await round(deployment, async (startedAt) => {
    await sleep(Math.max(0, startedAt + 5000 - performance.now()));
    killedAt = performance.now();
    await deployment.restartBouncer(3000);
    restartedAt = performance.now();
  });
  const firstAfter = result.acceptedAt.filter((at) => at > restartedAt).sort((a, b) => a - b)[0];
  console.log(
    `\nPgBouncer restart (SIGKILL 5 s into a ${SECONDS} s round, started again on its port 3 s later): ` +
      `${result.acceptedAt.length} replies accepted, ${result.completed} completed with their whole text; ` +
      `POSTs refused (retried after 200 ms), by status: ${JSON.stringify(result.refusals)}; first POST accepted ` +
      `${firstAfter === undefined ? 'never' : `${(firstAfter - restartedAt).toFixed(0)} ms after the restart`} ` +
      `(${((firstAfter ?? NaN) - killedAt).toFixed(0)} ms after the kill)`,
  );
}
