import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { prefixedKey, REDIS } from '@app/redis';

/** Channel on which the gateway asks every worker to stop a thread's live run (DELETE /chat/{thread_id}). */
export const runCancellationChannel = (redisPrefix: string) => prefixedKey(redisPrefix, 'runs', 'cancel');

/**
 * Asks whichever worker runs a reply of the thread to stop it. Workers also check the thread's state between
 * steps, so a missed message delays the stop by one step at most.
 */
@Injectable()
export class RunCancellation {
  constructor(
    private readonly settings: Settings,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async requestCancel(threadId: string): Promise<void> {
    await this.redis.publish(runCancellationChannel(this.settings.redisPrefix), threadId);
  }
}
