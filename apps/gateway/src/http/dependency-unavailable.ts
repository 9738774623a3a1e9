import { DependencyUnavailableError } from '@app/contracts';

/** Socket-level codes that mean the peer is gone or unreachable, not that the request was wrong. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTCONN',
]);

/**
 * PostgreSQL SQLSTATEs of an unavailable server: class 08 (connection exception), 53300 (too many
 * connections), 57P01-57P03 (shutdown, crash shutdown, cannot connect now).
 */
const POSTGRES_UNAVAILABLE = /^(08...|53300|57P0[123])$/;

/** Messages of pg, pg-pool and ioredis that carry no code but mean "the connection is not there". */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/, // pg: server went away, or connectionTimeoutMillis passed
  /^timeout exceeded when trying to connect/, // pg-pool: no client within connectionTimeoutMillis
  /^Connection is closed/, // ioredis
  /^Command timed out/, // ioredis commandTimeout
  /^Reached the max retries per request limit/, // ioredis maxRetriesPerRequest
  /enableOfflineQueue options is false/, // ioredis while disconnected, without an offline queue
  /^No subscriber for the cluster/, // ioredis Cluster with no subscriber node (starting, or failing over)
  /^Too many Cluster redirections/, // ioredis Cluster: a slot's master gone for longer than its retries
  /^CLUSTERDOWN/, // Redis Cluster: a slot has no master
  /^Client network socket disconnected/,
];

function codeOf(error: object): unknown {
  return (error as { code?: unknown }).code;
}

/**
 * True when the error means a dependency is unavailable (refused, terminated, pool or command timeout) rather
 * than a bug or bad input. TypeORM wraps driver errors (`driverError`), Node wraps several attempts in an
 * AggregateError (`errors`): both are looked into.
 */
export function isDependencyUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  if (error instanceof DependencyUnavailableError) return true;
  const code = codeOf(error);
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code))) return true;
  if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(error.message))) return true;
  const nested = [
    (error as { driverError?: unknown }).driverError,
    error.cause,
    ...((error as { errors?: unknown[] }).errors ?? []),
  ];
  return nested.some((inner) => isDependencyUnavailable(inner, depth + 1));
}
