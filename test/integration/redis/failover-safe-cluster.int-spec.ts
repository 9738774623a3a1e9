import { createRedisConnection, FailoverSafeCluster } from '@app/redis';
import { Cluster } from 'ioredis';
import { RedisCluster } from '../../support/redis-cluster';

/**
 * Issue 45 (the chaos suite green): after a failover of the master holding the queues, a worker's BullMQ consumer
 * took no job again, because it awaited its blocking connection's `connect()`, which ioredis never settles when
 * the ready check meets a failed cluster. The cluster here has no replicas, so it stays failed until the killed
 * master comes back: the `connect()` made meanwhile must resolve once the cluster is whole.
 */
describe('a Redis Cluster connection reconnecting while the cluster is failed', () => {
  let cluster: RedisCluster;
  let connection: Cluster | undefined;

  beforeAll(async () => {
    cluster = await RedisCluster.start({ masters: 3, nodeTimeoutMs: 1000 });
  }, 60000);

  afterAll(async () => {
    connection?.disconnect();
    await cluster?.stop();
  });

  it('settles connect() once the cluster is whole again, on the duplicate BullMQ blocks on', async () => {
    const shared = createRedisConnection({ redisUrl: cluster.url }, 'failover-spec') as unknown as Cluster;
    // BullMQ's worker blocks on a duplicate of the connection it is given, and reconnects that one.
    connection = shared.duplicate();
    shared.disconnect();
    expect(connection).toBeInstanceOf(FailoverSafeCluster);
    await connection.ping();

    const [killed] = await cluster.masters();
    cluster.kill(killed);
    await cluster.failed();
    await new Promise<void>((resolve) => {
      connection!.once('end', () => resolve());
      connection!.disconnect();
    });

    let settled: 'resolved' | Error | undefined;
    const connecting = connection.connect().then(
      () => (settled = 'resolved'),
      (error: Error) => (settled = error),
    );
    // The ready check fails meanwhile, and ioredis reconnects on its own, over and over.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(settled).toBeUndefined();

    await cluster.restartMaster(killed);
    await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, 20000))]);
    expect(settled).toBe('resolved');
    expect(await connection.ping()).toBe('PONG');
  }, 90000);
});
