import { Redis, RedisOptions } from 'ioredis';
import { Settings } from '@app/config';

/**
 * Every Redis connection of a process comes from here, so all of them share one URL and retry policy.
 * `maxRetriesPerRequest: null` is what BullMQ workers need, and lets commands wait out a reconnect
 * instead of failing while Redis restarts.
 */
export function createRedisConnection(
  settings: Pick<Settings, 'redisUrl'>,
  name: string,
  extra: RedisOptions = {},
): Redis {
  return new Redis(settings.redisUrl, {
    connectionName: name,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    ...extra,
  });
}

/**
 * A Redis key or channel under the deployment's prefix (REDIS_PREFIX): two deployments or test runs with
 * different prefixes never see each other's keys. BullMQ gets the same prefix through its `prefix` option.
 */
export function prefixedKey(prefix: string, ...parts: string[]): string {
  return [prefix, ...parts].join(':');
}
