/**
 * Redis CPU of live reply lines on a Redis Cluster, classic PUBLISH against sharded SPUBLISH: a cluster of
 * BENCH_SHARDS masters (default 3, no replicas), BENCH_GATEWAYS gateways' stream subscribers (the gateway's own
 * SharedSubscriber, classic or on shard channels), BENCH_REPLIES replies each followed on one gateway, and
 * BENCH_TOKENS streamed tokens written at BENCH_RATE a second, one append call each (the worker's append script:
 * XADD with the seq's id, EXPIRE of log and owner, then PUBLISH or SPUBLISH of the line). Each node's CPU is read
 * from INFO (used_cpu_user + used_cpu_sys) before and after, and every line is counted at its subscriber. Needs
 * redis-server and redis-cli on the PATH and a build:
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/cluster.js
 *
 * (NODE_PATH only when the build is outside the checkout.) Defaults: 3 shards, 2 gateways, 60 replies, 20,000
 * tokens, 2,000 a second; each mode runs BENCH_ROUNDS times (default 3), alternating, on the same cluster.
 *
 * BENCH_MODE=paced runs the whole deployment instead (bench/cluster-paced.ts): 2 gateways + 2 workers through
 * PgBouncer on a single Redis and on clusters of 1, 2 and 3 masters, the paced workload, and a PgBouncer restart.
 */
import { Redis } from 'ioredis';
import { loadSettings } from '@app/config';
import { createRedisConnection } from '@app/redis';
import { encodeEvent, EVENT_FIELD, runEventKeys, SharedSubscriber, streamEntryId } from '@app/run-events';
import { RedisCluster } from '../test/support/redis-cluster';
import { measurePacedDeployments } from './cluster-paced';
import { benchNumbers, median, sleep } from './support';

const { SHARDS, GATEWAYS, REPLIES, TOKENS, RATE, ROUNDS } = benchNumbers({
  SHARDS: 3,
  GATEWAYS: 2,
  REPLIES: 60,
  TOKENS: 20000,
  RATE: 2000,
  ROUNDS: 3,
});

type Mode = 'PUBLISH' | 'SPUBLISH';

/** The worker's append script for one line, with the publish command of the mode. KEYS: stream, owner. */
const appendScript = (publish: Mode) => `
redis.call('XADD', KEYS[1], ARGV[1], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], 3600)
redis.call('EXPIRE', KEYS[2], 3600)
redis.call('${publish}', ARGV[4], ARGV[3])
return 1`;

async function nodeCpuMs(ports: number[]): Promise<number[]> {
  return Promise.all(
    ports.map(async (port) => {
      const connection = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
      await connection.connect();
      const info = await connection.info('cpu');
      connection.disconnect();
      const value = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)![1]);
      return (value('used_cpu_user') + value('used_cpu_sys')) * 1000;
    }),
  );
}

async function runMode(cluster: RedisCluster, mode: Mode, round: number): Promise<number[]> {
  const prefix = `bench_cluster_${mode.toLowerCase()}_${round}`;
  const settings = loadSettings({ REDIS_URL: cluster.url, REDIS_PREFIX: prefix });
  const writer = createRedisConnection(settings, `${prefix}:writer`);
  writer.defineCommand('appendLine', { numberOfKeys: 2, lua: appendScript(mode) });
  const subscribers = Array.from(
    { length: GATEWAYS },
    (_, i) =>
      new SharedSubscriber(
        createRedisConnection(
          settings,
          `${prefix}:gateway-${i}`,
          { autoResubscribe: false },
          { shardedSubscribers: mode === 'SPUBLISH' },
        ),
      ),
  );
  const replies = Array.from({ length: REPLIES }, (_, i) => `${prefix}-reply-${i}`);
  let received = 0;
  const leaves = await Promise.all(
    replies.map((id, i) =>
      subscribers[i % GATEWAYS].join(runEventKeys(prefix, id).channel, () => {
        received += 1;
      }),
    ),
  );
  const append = (
    writer as unknown as { appendLine: (...args: string[]) => Promise<number> }
  ).appendLine.bind(writer);
  // Warm: every reply's keys exist, every node connection is open.
  await Promise.all(replies.map((id) => writer.set(runEventKeys(prefix, id).owner, 'bench')));
  const ports = await cluster.masters();
  const before = await nodeCpuMs(ports);
  const started = Date.now();
  const pending: Promise<number>[] = [];
  for (let seq = 0; seq < TOKENS; seq++) {
    const id = replies[seq % REPLIES];
    const keys = runEventKeys(prefix, id);
    const line = encodeEvent({ seq: Math.floor(seq / REPLIES), type: 'text.delta', delta: 'token ' });
    pending.push(
      append(
        keys.stream,
        keys.owner,
        streamEntryId(Math.floor(seq / REPLIES)),
        EVENT_FIELD,
        line,
        keys.channel,
      ),
    );
    const due = started + ((seq + 1) * 1000) / RATE;
    if (due > Date.now() + 5) await sleep(due - Date.now());
  }
  await Promise.all(pending);
  const deadline = Date.now() + 10000;
  while (received < TOKENS && Date.now() < deadline) await sleep(50);
  const after = await nodeCpuMs(ports);
  if (received !== TOKENS) throw new Error(`${mode}: ${received} of ${TOKENS} lines reached a subscriber`);
  await Promise.all(leaves.map((leave) => leave()));
  await Promise.all(subscribers.map((subscriber) => subscriber.close()));
  writer.disconnect();
  return after.map((ms, i) => ((ms - before[i]) * 1000) / TOKENS);
}

/** What the masters spend with no traffic over the time 1,000 tokens take at RATE (cron, cluster bus pings). */
async function idleCpu(cluster: RedisCluster): Promise<number[]> {
  const ports = await cluster.masters();
  const before = await nodeCpuMs(ports);
  const ms = (TOKENS * 1000) / RATE;
  await sleep(ms);
  const after = await nodeCpuMs(ports);
  return after.map((cpu, i) => ((cpu - before[i]) * 1000) / TOKENS);
}

async function main(): Promise<void> {
  const cluster = await RedisCluster.start({ masters: SHARDS });
  try {
    const idle = await idleCpu(cluster);
    const results: Record<Mode, number[][]> = { PUBLISH: [], SPUBLISH: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const mode of ['PUBLISH', 'SPUBLISH'] as const) {
        const perNode = await runMode(cluster, mode, round);
        results[mode].push(perNode);
        console.log(
          `${mode} round ${round + 1}: Redis CPU ms per 1,000 tokens, per master: ${cells(perNode)}`,
        );
      }
    console.log(
      `\n${SHARDS} masters, ${GATEWAYS} gateways' subscribers, ${REPLIES} replies, ${TOKENS} tokens at ${RATE}/s, medians of ${ROUNDS} rounds:`,
    );
    console.log('| mode | Redis CPU ms per 1,000 tokens, each master | all masters |');
    console.log('| --- | --- | --- |');
    console.log(`| idle (no traffic, as long) | ${cells(idle)} | ${sum(idle).toFixed(1)} |`);
    for (const mode of ['PUBLISH', 'SPUBLISH'] as const) {
      const perNode = Array.from({ length: SHARDS }, (_, node) =>
        median(results[mode].map((round) => round[node])),
      );
      console.log(`| ${mode} | ${cells(perNode)} | ${median(results[mode].map(sum)).toFixed(1)} |`);
    }
  } finally {
    await cluster.stop();
  }
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const cells = (values: number[]) => values.map((ms) => ms.toFixed(1)).join(' / ');

(process.env.BENCH_MODE === 'paced' ? measurePacedDeployments() : main()).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
