/**
 * The same load on three deployments: 1 gateway + 1 worker on one Redis, 1 + 1 on a three-master Redis Cluster,
 * and 2 gateways + 3 workers on that cluster (clients spread over the gateways). A conversation is POST /chat
 * (`/say` and 22 words) and its stream read to message.completed; failures are counted, not thrown.
 * On the 2-core machine this runs on, every process shares the same cores: the figures show that more
 * processes stay correct and what they cost, not a speed-up.
 *
 *   npm run build && node dist/bench/scale.js
 *
 * Environment: BENCH_CLIENTS (16), BENCH_CONVERSATIONS (300 per round), BENCH_RUNS (3).
 */
import { performance } from 'node:perf_hooks';
import { RedisCluster } from '../test/support/redis-cluster';
import { benchNumbers, createBenchEnvironment, median, percentile } from './support';

const { CLIENTS, CONVERSATIONS, RUNS } = benchNumbers({ CLIENTS: 16, CONVERSATIONS: 300, RUNS: 3 });
const CONTENT =
  '/say the quick brown fox jumps over the lazy dog while seven clever ravens watch from an old oak tree near';

interface Target {
  urls: string[];
  key: string;
  agentId: string;
}

/** One conversation to its end; its duration in ms, or the reason it failed. */
async function conversation(url: string, target: Target): Promise<number | Error> {
  const started = performance.now();
  try {
    const posted = await fetch(`${url}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': target.key },
      body: JSON.stringify({
        message: { content: CONTENT },
        options: { agent_id: target.agentId, user_id: 'b' },
      }),
    });
    if (posted.status !== 200) throw new Error(`POST /chat: ${posted.status}`);
    const thread = (await posted.json()) as { messages: { id: string }[] };
    const stream = await fetch(`${url}/chat/messages/${thread.messages[1].id}/stream`, {
      headers: { 'x-service-token': target.key },
    });
    const text = await stream.text();
    if (!stream.ok || !text.includes('"status":"success"'))
      throw new Error(`stream ${stream.status} not completed`);
    return performance.now() - started;
  } catch (error) {
    return error as Error;
  }
}

async function round(target: Target) {
  const durations: number[] = [];
  const errors: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      // Each client keeps to one gateway, as a client behind a load balancer's connection would.
      const url = target.urls[client % target.urls.length];
      while (next++ < CONVERSATIONS) {
        const result = await conversation(url, target);
        if (typeof result === 'number') durations.push(result);
        else errors.push(result.message);
      }
    }),
  );
  return { perSecond: durations.length / ((performance.now() - started) / 1000), durations, errors };
}

async function measure(label: string, redisUrl: string | undefined, gateways: number, workers: number) {
  const environment = await createBenchEnvironment(redisUrl ? { REDIS_URL: redisUrl } : {});
  try {
    const { key } = await environment.admin(['keys:create', '--org', 'bench']);
    const { id: agentId } = await environment.admin(['agents:create', '--org', 'bench', '--name', 'bench']);
    const urls: string[] = [];
    for (let index = 0; index < gateways; index++) urls.push((await environment.startGateway()).url);
    for (let index = 0; index < workers; index++) await environment.startWorker();
    const target = { urls, key, agentId };
    await round(target); // warm up: JIT, pools, prepared plans
    const runs = [];
    for (let index = 0; index < RUNS; index++) runs.push(await round(target));
    const rates = runs.map((run) => run.perSecond);
    const middle = runs[rates.indexOf(median(rates))];
    const errors = runs.flatMap((run) => run.errors);
    const line =
      `| ${label} | ${median(rates).toFixed(1)} (runs: ${rates.map((r) => r.toFixed(1)).join(', ')}) | ` +
      `${median(middle.durations).toFixed(1)} / ${percentile(middle.durations, 99).toFixed(1)} | ` +
      `${errors.length} of ${RUNS * CONVERSATIONS}${errors.length ? ` (${[...new Set(errors)].join('; ')})` : ''} |`;
    process.stdout.write(`${line}\n`);
    return line;
  } finally {
    await environment.dispose();
  }
}

async function main(): Promise<void> {
  const cluster = await RedisCluster.start();
  try {
    const lines = [
      `${CLIENTS} clients, ${CONVERSATIONS} conversations a run, median of ${RUNS} runs`,
      '',
      '| deployment | conversations/s | conversation p50 / p99 ms | failed |',
      '|---|---|---|---|',
      await measure('1 gateway + 1 worker, one Redis', undefined, 1, 1),
      await measure('1 gateway + 1 worker, Redis Cluster (3 masters)', cluster.url, 1, 1),
      await measure('2 gateways + 3 workers, Redis Cluster (3 masters)', cluster.url, 2, 3),
    ];
    process.stdout.write(`\n${lines.join('\n')}\n`);
  } finally {
    await cluster.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  },
);
