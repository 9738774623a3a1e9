import { BeforeApplicationShutdown, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { FileAttachmentsModule } from '@app/files';
import { createRedisConnection, REDIS } from '@app/redis';
import { RunEventReader, SharedSubscriber } from '@app/run-events';
import { StalledStreams } from './stalled-streams';
import { StreamController } from './stream.controller';
import { OpenReplyStream } from './use-cases/open-reply-stream.use-case';

/**
 * On shutdown: ends the open streams first and cuts those whose clients take nothing (before the HTTP server
 * waits for responses in flight and the Redis connections close), then releases the process's one subscriber
 * connection.
 */
@Injectable()
class StreamLifecycle implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(SharedSubscriber) private readonly subscriber: SharedSubscriber,
    @Inject(StalledStreams) private readonly stalled: StalledStreams,
  ) {}

  beforeApplicationShutdown(): void {
    this.reader.closeAll();
    this.stalled.cutAll();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber.close();
  }
}

@Module({
  imports: [FileAttachmentsModule],
  controllers: [StreamController],
  providers: [
    {
      provide: SharedSubscriber,
      inject: [Settings],
      useFactory: (settings: Settings) =>
        // Named by deployment and process, so an operator (or a fault test) can find this gateway's connection;
        // it resubscribes by itself after a reconnect (SharedSubscriber), not through ioredis.
        new SharedSubscriber(
          createRedisConnection(settings, `${settings.redisPrefix}:stream-subscriber:${process.pid}`, {
            autoResubscribe: false,
          }),
        ),
    },
    {
      provide: RunEventReader,
      inject: [REDIS, SharedSubscriber, Settings],
      useFactory: (redis: Redis, subscriber: SharedSubscriber, settings: Settings) =>
        new RunEventReader(redis, subscriber, settings.redisPrefix),
    },
    {
      provide: StalledStreams,
      inject: [Settings],
      useFactory: (settings: Settings) => new StalledStreams(settings.streamMaxStalledBytes),
    },
    StreamLifecycle,
    OpenReplyStream,
  ],
  // Other protocols (the AI SDK's, the Responses API, MCP) translate the same reader's lines.
  exports: [OpenReplyStream, StalledStreams],
})
export class StreamModule {}
