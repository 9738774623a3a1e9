import { LoggerService } from '@nestjs/common';
import { redactUrlPassword, Settings } from '@app/config';
import { PostgresNoAnswerError, probePostgres } from '@app/persistence';
import { probeRedis } from '@app/redis';

/** A dependency a process (gateway, worker) cannot start without, named as an operator configures it. */
export interface Dependency {
  name: 'PostgreSQL' | 'Redis';
  setting: 'DATABASE_URL' | 'REDIS_URL';
  url: string;
  probe(): Promise<void>;
}

/** What the gateway and the worker both need before their app can load: PostgreSQL and Redis. */
export function serviceDependencies(settings: Settings): Dependency[] {
  return [
    {
      name: 'PostgreSQL',
      setting: 'DATABASE_URL',
      url: settings.databaseUrl,
      probe: () =>
        probePostgres(settings.databaseUrl, settings.databaseConnectTimeoutMs).catch((error: unknown) => {
          // Reachable but slow (a paused or saturated PgBouncer): waiting is right, and the time-out is a setting.
          if (error instanceof PostgresNoAnswerError)
            throw new Error(
              `${error.message} (DATABASE_CONNECT_TIMEOUT_MS: raise it if PostgreSQL is only slow)`,
            );
          throw error;
        }),
    },
    {
      name: 'Redis',
      setting: 'REDIS_URL',
      url: settings.redisUrl,
      probe: () => probeRedis(settings.redisUrl),
    },
  ];
}

/** "Redis at REDIS_URL redis://127.0.0.1:6379": what to check, and where it is set. */
export function describeDependency(dependency: Dependency): string {
  return `${dependency.name} at ${dependency.setting} ${String(redactUrlPassword(dependency.url))}`;
}

/** The reason of a failed connection; Node reports a refused dual-stack connect as an AggregateError without one. */
function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && !error.message) return reasonOf(error.errors[0]);
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}

const MAX_DELAY_MS = 5000;

/**
 * Returns once every dependency answers. Until then, each round logs one line per dependency that does not
 * answer, naming its setting and the reason, and reports what is awaited (`onWaiting`) so that the server
 * answering liveness meanwhile can say it.
 */
export async function waitForDependencies(
  dependencies: Dependency[],
  logger: LoggerService,
  onWaiting: (waitingFor: Dependency[]) => void,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const results = await Promise.all(
      dependencies.map((dependency) =>
        dependency.probe().then(
          () => null,
          (error: unknown) => ({ dependency, reason: reasonOf(error) }),
        ),
      ),
    );
    const unreachable = results.filter((result) => result !== null);
    onWaiting(unreachable.map(({ dependency }) => dependency));
    if (unreachable.length === 0) return;
    const delayMs = Math.min(1000 * attempt, MAX_DELAY_MS);
    for (const { dependency, reason } of unreachable) {
      logger.warn(
        { dependency: dependency.name, setting: dependency.setting, attempt },
        `cannot reach ${describeDependency(dependency)}: ${reason}; retrying in ${delayMs / 1000} s`,
        'Startup',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}
