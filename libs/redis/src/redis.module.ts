import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { commandConnectionOptions, createRedisConnection, RedisRole } from './redis.factory';

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

/** The shared command connection, shaped for the process's role (`RedisRole`). */
@Global()
@Module({})
export class RedisModule {
  static forRoot(role: RedisRole): DynamicModule {
    return {
      module: RedisModule,
      providers: [
        {
          provide: REDIS,
          inject: [Settings],
          useFactory: (settings: Settings) =>
            createRedisConnection(settings, 'commands', commandConnectionOptions(role)),
        },
        RedisLifecycle,
      ],
      exports: [REDIS],
    };
  }
}
