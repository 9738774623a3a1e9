import { BeforeApplicationShutdown, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { createRedisConnection, REDIS } from '@app/redis';
import { RunEventReader, SharedSubscriber } from '@app/run-events';
import { StreamController } from './stream.controller';
import { OpenReplyStream } from './use-cases/open-reply-stream.use-case';

/**
 * On shutdown: ends the open streams first (before the HTTP server waits for responses in flight and the
 * Redis connections close), then releases the process's one subscriber connection.
 */
@Injectable()
class StreamLifecycle implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(SharedSubscriber) private readonly subscriber: SharedSubscriber,
  ) {}

  beforeApplicationShutdown(): void {
    this.reader.closeAll();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber.close();
  }
}

@Module({
  controllers: [StreamController],
  providers: [
    {
      provide: SharedSubscriber,
      inject: [Settings],
      useFactory: (settings: Settings) =>
        new SharedSubscriber(createRedisConnection(settings, 'stream-subscriber')),
    },
    {
      provide: RunEventReader,
      inject: [REDIS, SharedSubscriber, Settings],
      useFactory: (redis: Redis, subscriber: SharedSubscriber, settings: Settings) =>
        new RunEventReader(redis, subscriber, settings.redisPrefix),
    },
    StreamLifecycle,
    OpenReplyStream,
  ],
})
export class StreamModule {}
