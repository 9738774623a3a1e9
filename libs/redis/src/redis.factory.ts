import { ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { Settings } from '@app/config';
import { FailoverSafeCluster } from './failover-safe-cluster';
import { redisIncidents } from './redis-incidents';

const CLUSTER_SCHEME = 'redis-cluster://';

/** The seed nodes of a `redis-cluster://[user:password@]host:port,host:port` URL, or null for a plain Redis URL. */
export function redisClusterNodes(
  redisUrl: string,
): { nodes: { host: string; port: number }[]; username?: string; password?: string } | null {
  if (!redisUrl.startsWith(CLUSTER_SCHEME)) return null;
  const rest = redisUrl.slice(CLUSTER_SCHEME.length).replace(/\/.*$/, '');
  const at = rest.lastIndexOf('@');
  const [username, password] = at >= 0 ? rest.slice(0, at).split(':').map(decodeURIComponent) : [];
  const nodes = (at >= 0 ? rest.slice(at + 1) : rest).split(',').map((node) => {
    const [host, port] = node.split(':');
    return { host, port: Number(port || 6379) };
  });
  return { nodes, username: username || undefined, password: password || undefined };
}

/**
 * How a process's connections behave while Redis is away.
 * - `background` (workers, subscribers, the admin CLI): commands wait out a reconnect (`maxRetriesPerRequest:
 *   null`, what BullMQ workers require), so a run pauses through a Redis restart instead of failing.
 * - `requests` (the gateway): a request must fail fast with 503, never hang. Commands give up after
 *   REQUEST_COMMAND_TIMEOUT_MS (also while waiting in the offline queue through a short reconnect); the BullMQ
 *   producer connection has no offline queue at all, so an enqueue while Redis is down fails at once.
 */
export type RedisRole = 'background' | 'requests';

/** Bound of one Redis command on the request path: well under any client's patience, above a busy Redis's p99. */
const REQUEST_COMMAND_TIMEOUT_MS = 2000;

/** Options of the shared command connection for a role. */
export function commandConnectionOptions(role: RedisRole): RedisOptions {
  return role === 'requests' ? { commandTimeout: REQUEST_COMMAND_TIMEOUT_MS } : {};
}

/** Options of the BullMQ connection for a role: a producer-only gateway fails fast, a worker waits. */
export function queueConnectionOptions(role: RedisRole): RedisOptions {
  return role === 'requests'
    ? { commandTimeout: REQUEST_COMMAND_TIMEOUT_MS, enableOfflineQueue: false, maxRetriesPerRequest: 1 }
    : {};
}

/**
 * Every Redis connection of a process comes from here, so all of them share one URL and retry policy.
 * `maxRetriesPerRequest: null` is what BullMQ workers need, and lets commands wait out a reconnect
 * instead of failing while Redis restarts (the default: see `RedisRole` for who overrides it).
 *
 * A `redis-cluster://` URL gives an ioredis Cluster. It is typed as Redis because it answers the same
 * commands (pipelines, scripts, pub/sub, blocking reads): what differs is where keys live, which the key names
 * handle (BULLMQ's hash-tagged prefix, one hash tag per reply in the run-event keys).
 */
export function createRedisConnection(
  settings: Pick<Settings, 'redisUrl'>,
  name: string,
  extra: RedisOptions = {},
  /** Options that only a Redis Cluster connection takes (e.g. `shardedSubscribers`). */
  clusterExtra: Partial<ClusterOptions> = {},
): Redis {
  const options: RedisOptions = {
    connectionName: name,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    ...extra,
  };
  const cluster = redisClusterNodes(settings.redisUrl);
  if (!cluster) return reportingIncidents(new Redis(settings.redisUrl, options), name);
  const connection = new FailoverSafeCluster(cluster.nodes, {
    redisOptions: { ...options, username: cluster.username, password: cluster.password },
    clusterRetryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    enableReadyCheck: true,
    ...FAILOVER_RIDE_THROUGH,
    ...clusterExtra,
  });
  redisIncidents.watchCluster(connection);
  return reportingIncidents(connection as unknown as Redis, name);
}

/**
 * Its errors go to the process's RedisIncidents, summed up in one line per restart or failover, instead of ioredis
 * printing each with its stack ("Unhandled error event").
 */
function reportingIncidents(connection: Redis, name: string): Redis {
  connection.on('error', (error: unknown) => redisIncidents.error(name, error));
  return connection;
}

/**
 * How long a command waits out a master's failover before failing: Redis promotes a replica about
 * `cluster-node-timeout` (commonly 5 to 15 s) after its master dies. ioredis's defaults retry a command sent to the
 * dead master only 16 × 100 ms, so every command of that window failed (a run's event writes, its job's
 * completion) and the jobs were recovered only when their locks expired and a stalled-job check found them (30
 * to 60 s). Retrying every 250 ms for up to 20 s, each retry re-reading the slot map, lands the command on the
 * promoted replica instead. The gateway's request commands still give up after REQUEST_COMMAND_TIMEOUT_MS.
 */
const FAILOVER_RETRY_DELAY_MS = 250;
const FAILOVER_RIDE_THROUGH_MS = 20000;
const FAILOVER_RIDE_THROUGH = {
  retryDelayOnFailover: FAILOVER_RETRY_DELAY_MS,
  retryDelayOnClusterDown: FAILOVER_RETRY_DELAY_MS,
  retryDelayOnTryAgain: FAILOVER_RETRY_DELAY_MS,
  maxRedirections: FAILOVER_RIDE_THROUGH_MS / FAILOVER_RETRY_DELAY_MS,
  // Re-read the slot map now and then even when no command failed: a connection that only listens (pub/sub, a
  // blocked worker) learns of the promotion within this interval.
  slotsRefreshInterval: 2000,
};

/**
 * A Redis key or channel under the deployment's prefix (REDIS_PREFIX): two deployments or test runs with
 * different prefixes never see each other's keys. BullMQ gets the same prefix through its `prefix` option.
 */
export function prefixedKey(prefix: string, ...parts: string[]): string {
  return [prefix, ...parts].join(':');
}

/**
 * BullMQ's key prefix. On Redis Cluster its scripts touch several keys of a queue at once, so they must share a
 * slot: the prefix becomes a hash tag, `{agents}`, putting each deployment's queues on one node.
 */
export function queuePrefix(settings: Pick<Settings, 'redisUrl' | 'redisPrefix'>): string {
  return redisClusterNodes(settings.redisUrl) ? `{${settings.redisPrefix}}` : settings.redisPrefix;
}
