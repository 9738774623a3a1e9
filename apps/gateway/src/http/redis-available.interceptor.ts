import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { Redis } from 'ioredis';
import { DependencyUnavailableError } from '@app/contracts';
import { REDIS } from '@app/redis';

/**
 * Refuses a write that would need Redis after storing something (e.g. enqueueing a run) while this process is
 * not connected to Redis: answered 503 with `Retry-After` before anything is stored, instead of a stored
 * request whose run starts whenever Redis comes back.
 */
@Injectable()
export class RedisAvailableInterceptor implements NestInterceptor {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (this.redis.status !== 'ready') throw new DependencyUnavailableError('Redis is unavailable');
    return next.handle();
  }
}
