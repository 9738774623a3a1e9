import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { prefixedKey, REDIS } from '@app/redis';

/**
 * A worker's figure older than this is not counted. A worker reports only the quarter seconds in which it started
 * runs, so while runs wait for it its figure stays fresh; when nothing more starts (admission refused everything
 * meanwhile, or the load is gone) the last figure must not refuse on for ever: a second on, new replies are let in
 * and their own waits say whether the queue is still there.
 */
const FRESH_MS = 1000;

/** A field older than this is deleted as it is read: the worker that wrote it is gone. */
const FORGOTTEN_MS = 60_000;

/**
 * How long the runs a worker started lately had waited for it since they were enqueued, as each worker reports
 * it (the fastest start of its last quarter second with starts), for admission control on every gateway: one
 * Redis hash, a field per worker holding `<wait ms>@<reported at, ms since epoch>`. The fastest, as CoDel judges a
 * queue: when even it waited long, the queue in front of the workers is standing, not a moment's burst.
 */
@Injectable()
export class RunStartWaits {
  private readonly key: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    settings: Settings,
  ) {
    this.key = prefixedKey(settings.redisPrefix, 'admission', 'run-start-waits');
  }

  async report(workerId: string, waitMs: number): Promise<void> {
    await this.redis.hset(this.key, workerId, `${Math.round(waitMs)}@${Date.now()}`);
  }

  /** The longest of the workers' fresh figures, in ms; 0 when none is fresh. */
  async longest(): Promise<number> {
    const now = Date.now();
    let longest = 0;
    const forgotten: string[] = [];
    for (const [workerId, figure] of Object.entries(await this.redis.hgetall(this.key))) {
      const [waitMs, reportedAt] = figure.split('@').map(Number);
      if (now - reportedAt > FORGOTTEN_MS) forgotten.push(workerId);
      else if (now - reportedAt <= FRESH_MS) longest = Math.max(longest, waitMs);
    }
    if (forgotten.length > 0) await this.redis.hdel(this.key, ...forgotten);
    return longest;
  }
}
