import { CanActivate, Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { DependencyUnavailableError, QUEUE } from '@app/contracts';
import { queuePrefix, REDIS } from '@app/redis';

/**
 * Refuses a write that would need Redis after storing something (e.g. enqueueing a run) while this process is
 * not connected to Redis: answered 503 with `Retry-After` before anything is stored (before the body is even
 * validated), instead of a stored request whose run starts whenever Redis comes back. A guard: it only says yes
 * or no, without an interceptor's per-request observable chain.
 *
 * On a Redis Cluster the connection stays `ready` while one master is down, and every queue sits on one master
 * (the `{REDIS_PREFIX}` slot): a write there first asks that slot's master, through the request path's bounded
 * commands, so a failing-over queue master refuses the write too instead of storing it for the sweep.
 */
@Injectable()
export class RedisAvailableGuard implements CanActivate {
  private readonly queueSlotKey: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    settings: Settings,
  ) {
    this.queueSlotKey = `${queuePrefix(settings)}:${QUEUE.agentRun}:meta`;
  }

  canActivate(): boolean | Promise<boolean> {
    if (this.redis.status !== 'ready') throw new DependencyUnavailableError('Redis is unavailable');
    if (!this.redis.isCluster) return true;
    return this.redis.exists(this.queueSlotKey).then(
      () => true,
      () => {
        throw new DependencyUnavailableError('Redis is unavailable');
      },
    );
  }
}
