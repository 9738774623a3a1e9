import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { prefixedKey, REDIS } from '@app/redis';

/**
 * Channel on which the gateway asks every worker to stop a thread's live run (DELETE /chat/{thread_id}, a
 * follow-up with `multitask_strategy: "interrupt"`).
 */
export const runCancellationChannel = (redisPrefix: string) => prefixedKey(redisPrefix, 'runs', 'cancel');

/** What the channel carries: the thread, and the reply when only that one must stop (not a later one). */
export interface RunCancellationRequest {
  threadId: string;
  messageId?: string;
}

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

  async requestCancel(request: RunCancellationRequest): Promise<void> {
    // Classic PUBLISH even on a Redis Cluster: every worker listens to this one channel, so a shard channel would
    // bring no spreading (one slot, one shard), and a cancellation is rare next to a reply's lines.
    await this.redis.publish(runCancellationChannel(this.settings.redisPrefix), JSON.stringify(request));
  }
}
