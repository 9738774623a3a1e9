import { Redis } from 'ioredis';
import { redisClusterNodes } from './redis.factory';

/**
 * One connection attempt and a PING, without retries: whether Redis at `redisUrl` answers now. For a
 * `redis-cluster://` URL any seed node that answers will do. Rejects with the client's reason.
 */
export async function probeRedis(redisUrl: string, timeoutMs = 2000): Promise<void> {
  const cluster = redisClusterNodes(redisUrl);
  const targets = cluster
    ? cluster.nodes.map((node) => ({ ...node, username: cluster.username, password: cluster.password }))
    : [redisUrl];
  let failure: unknown;
  for (const target of targets) {
    const options = { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0 };
    const connection =
      typeof target === 'string'
        ? new Redis(target, { ...options, retryStrategy: () => null })
        : new Redis({ ...target, ...options, retryStrategy: () => null });
    // ioredis rejects a refused connect with "Connection is closed."; the reason is the error it emits (and
    // without a listener would print as "Unhandled error event").
    let reason: unknown;
    connection.on('error', (error) => (reason ??= error));
    try {
      await connection.connect();
      await connection.ping();
      return;
    } catch (error) {
      failure = reason ?? error;
    } finally {
      connection.disconnect();
    }
  }
  throw failure;
}
