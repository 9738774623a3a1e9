import { loadSettings } from '@app/config';
import { createRedisConnection } from '@app/redis';
import { RunEventWriter } from '@app/run-events';
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

  beforeAll(async () => {
    cluster = await RedisCluster.start();
  }, 60000);

  afterAll(async () => {
    redis?.disconnect();
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
});
