import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { prefixedKey } from '@app/redis';

/**
 * The timer of a sweep every worker runs, of which one pass at a time should do the work: each pass first takes
 * a Redis lock that lapses after one interval (no release: a worker that dies mid-pass blocks nobody for longer),
 * so across workers one pass runs per interval. A failed pass is logged; the next one tries again.
 */
export class LockedSweep {
  private timer?: NodeJS.Timeout;
  private readonly lock: string;

  constructor(
    private readonly redis: Redis,
    redisPrefix: string,
    /** The lock's key, under the deployment's prefix. */
    lockKey: string[],
    private readonly intervalMs: number,
  ) {
    this.lock = prefixedKey(redisPrefix, ...lockKey);
  }

  /** The timer of a sweep that runs every RUN_SWEEP_INTERVAL_MS, its lock under the deployment's prefix. */
  static everyRunSweep(redis: Redis, settings: Settings, lockKey: string[]): LockedSweep {
    return new LockedSweep(redis, settings.redisPrefix, lockKey, settings.runSweepIntervalMs);
  }

  /** Runs `pass` every interval (not keeping the process alive); its failures go to `logger` as `failure`. */
  start(pass: () => Promise<unknown>, logger: Logger, failure: string): void {
    this.timer = setInterval(() => {
      pass().catch((error: Error) => logger.warn({ err: error }, failure));
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Whether this pass is the interval's one: false when another worker's (or an earlier) pass took the lock. */
  async take(): Promise<boolean> {
    return (await this.redis.set(this.lock, '1', 'PX', this.intervalMs, 'NX')) === 'OK';
  }
}
