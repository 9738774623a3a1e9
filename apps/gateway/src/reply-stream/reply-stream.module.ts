import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { FileAttachmentsModule } from '@app/files';
import { createRedisConnection, REDIS } from '@app/redis';
import { RunEventReader, SharedSubscriber } from '@app/run-events';
import { StalledStreams } from './stalled-streams';
import { OpenReplyStream } from './open-reply-stream.use-case';
import { ReplyStreamLimits } from './reply-stream-limits';

/**
 * How long a starting gateway waits for its subscriber connection before it listens anyway (its stream opens then
 * wait for it, up to SharedSubscriber's own bound). Redis answered moments ago (the start waits for it), so this
 * is a Cluster choosing and ready-checking its subscriber node: well under a second when all is well.
 */
const SUBSCRIBER_WARM_UP_MS = 10000;

/**
 * At start: the subscriber connection is made ready before the app listens (a Redis Cluster opens it lazily, and
 * streams opened the moment a gateway is ready raced its ready check). On shutdown: ends the open streams first and cuts those whose clients take nothing (before the HTTP server
 * waits for responses in flight and the Redis connections close), then releases the process's one subscriber
 * connection.
 */
@Injectable()
class StreamLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('ReplyStreamModule');

  constructor(
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(SharedSubscriber) private readonly subscriber: SharedSubscriber,
    @Inject(StalledStreams) private readonly stalled: StalledStreams,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!(await this.subscriber.whenReady(SUBSCRIBER_WARM_UP_MS)))
      this.logger.warn({ waitedMs: SUBSCRIBER_WARM_UP_MS }, 'stream subscriber not ready at start');
  }

  beforeApplicationShutdown(): void {
    this.reader.closeAll();
    this.stalled.cutAll();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber.close();
  }
}

/**
 * A reply's lines for every protocol: the process's one subscriber connection and reader, OpenReplyStream (what a
 * caller may see, from Redis or, once expired there, from PostgreSQL) and the bound on clients that take nothing.
 */
@Module({
  imports: [FileAttachmentsModule],
  providers: [
    {
      provide: SharedSubscriber,
      inject: [Settings],
      useFactory: (settings: Settings) =>
        // Named by deployment and process, so an operator (or a fault test) can find this gateway's connection;
        // it resubscribes by itself after a reconnect (SharedSubscriber), not through ioredis. On a Redis Cluster
        // it listens on shard channels, one connection per master it needs (the writer uses SPUBLISH).
        new SharedSubscriber(
          createRedisConnection(
            settings,
            `${settings.redisPrefix}:stream-subscriber:${process.pid}`,
            { autoResubscribe: false },
            { shardedSubscribers: true },
          ),
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
    ReplyStreamLimits,
  ],
  // Every protocol (our JSONL stream, the AI SDK's, the Responses API, A2A, AG-UI, MCP) reads a reply through
  // OpenReplyStream and writes it within ReplyStreamLimits; health reads the subscriber's readiness.
  exports: [OpenReplyStream, StalledStreams, ReplyStreamLimits, SharedSubscriber],
})
export class ReplyStreamModule {}
