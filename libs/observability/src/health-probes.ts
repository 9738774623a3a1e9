import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';

/** A probe's own time limit: health answers within a second even when a dependency hangs. */
export const PROBE_TIMEOUT_MS = 800;

export function withinProbeTime<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The health check `key`: up when `probe` answers, down with the reason it failed otherwise. */
export async function checkAnswers<const Key extends string>(
  indicators: HealthIndicatorService,
  key: Key,
  probe: () => Promise<unknown>,
): Promise<HealthIndicatorResult<Key>> {
  const indicator = indicators.check(key);
  try {
    await probe();
    return indicator.up();
  } catch (error) {
    return indicator.down({ message: (error as Error).message });
  }
}
