import { loadSettings } from '@app/config';
import { createRedisConnection } from '@app/redis';
import { runEventKeys, RunEventWriter } from '@app/run-events';
import { Redis } from 'ioredis';
import { RedisCluster } from '../../support/redis-cluster';

/**
 * On a Redis Cluster, replies' logs sit on different masters (one hash tag each), and ioredis runs a pipeline on
 * one node only: the events of replies released in the same tick must still all be stored (issue 37.1; before,
 * the whole batch failed with "All keys in the pipeline should belong to the same slots allocation group").
 */
describe('RunEventWriter on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let redis: Redis;
  const listeners: Redis[] = [];

  beforeAll(async () => {
    cluster = await RedisCluster.start();
  }, 60000);

  afterAll(async () => {
    redis?.disconnect();
    for (const listener of listeners) listener.disconnect();
    await cluster?.stop();
  });

  it('stores the events of replies on different masters released in the same tick', async () => {
    const settings = loadSettings({
      REDIS_URL: cluster.url,
      REDIS_PREFIX: 'writer_cluster',
      RUN_EVENTS_TTL_SECONDS: '120',
    });
    redis = createRedisConnection(settings, 'writer-spec');
    const writer = new RunEventWriter(settings, redis);
    const ids = Array.from({ length: 12 }, (_, i) => `reply-${i}`);
    const claimed = await Promise.all(ids.map((id) => writer.claim(id, () => Promise.resolve(true))));

    for (const { log } of claimed) {
      log.append({ type: 'text.delta', delta: 'x' });
      log.release();
    }
    await Promise.all(claimed.map(({ log }) => log.flush()));

    for (const id of ids)
      expect([id, await writer.written(id)]).toEqual([id, [{ seq: 0, type: 'text.delta', delta: 'x' }]]);
    expect((await cluster.keysPerNode()).filter((keys) => keys > 0).length).toBeGreaterThan(1);
  });

  it('publishes on the shard channel (SPUBLISH), which only the shard that owns its slot carries', async () => {
    const settings = loadSettings({ REDIS_URL: cluster.url, REDIS_PREFIX: 'writer_cluster' });
    const writer = new RunEventWriter(settings, redis);
    const { channel } = runEventKeys(settings.redisPrefix, 'reply-sharded');
    const sharded = createRedisConnection(settings, 'sharded-listener', {}, { shardedSubscribers: true });
    const classic = createRedisConnection(settings, 'classic-listener');
    listeners.push(sharded, classic);
    const received: { sharded: string[]; classic: string[] } = { sharded: [], classic: [] };
    sharded.on('smessage', (_channel: string, message: string) => received.sharded.push(message));
    classic.on('message', (_channel: string, message: string) => received.classic.push(message));
    await sharded.ssubscribe(channel);
    await classic.subscribe(channel);

    const { log } = await writer.claim('reply-sharded', () => Promise.resolve(true));
    log.append({ type: 'text.delta', delta: 'x' });
    log.release();
    await log.flush();

    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received.sharded.map((message) => JSON.parse(message))).toEqual([
      { seq: 0, type: 'text.delta', delta: 'x' },
    ]);
    expect(received.classic).toEqual([]);
    // One subscriber connection, on the master that owns the channel's slot, holds it; no other master does.
    const owner = await cluster.masterOf(channel);
    const perMaster = await cluster.shardSubscribersPerMaster(channel);
    expect(perMaster.map(({ port, subscribers }) => ({ owner: port === owner, subscribers }))).toEqual(
      expect.arrayContaining([
        { owner: true, subscribers: 1 },
        { owner: false, subscribers: 0 },
      ]),
    );
    expect(perMaster.filter(({ subscribers }) => subscribers > 0)).toHaveLength(1);
  });
});
