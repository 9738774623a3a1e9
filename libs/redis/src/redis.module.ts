import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { createRedisConnection } from './redis.factory';

/** The process's shared command connection (caches, stream writes, publishes). */
export const REDIS = Symbol('REDIS');

/** Closes the shared connection on shutdown, after the app's own consumers have stopped. */
@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [Settings],
      useFactory: (settings: Settings) => createRedisConnection(settings, 'commands'),
    },
    RedisLifecycle,
  ],
  exports: [REDIS],
})
export class RedisModule {}
