import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { ActiveRuns } from '@app/agent';
import { Settings } from '@app/config';
import { runCancellationChannel, RunCancellationRequest } from '@app/run-events';
import { createRedisConnection } from '@app/redis';

/**
 * One subscriber connection per worker process on the cancellation channel: when the gateway archives a thread
 * or a follow-up interrupts its reply, the worker running that reply aborts it at once (the model call stops, no further step runs).
 */
@Injectable()
export class RunCancellationListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunCancellationListener.name);
  private subscriber?: Redis;

  constructor(
    private readonly settings: Settings,
    private readonly activeRuns: ActiveRuns,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const subscriber = createRedisConnection(this.settings, 'run-cancellation');
    subscriber.on('message', (_channel: string, payload: string) => {
      const { threadId, messageId } = JSON.parse(payload) as RunCancellationRequest;
      if (this.activeRuns.cancel(threadId, messageId))
        this.logger.log({ threadId, messageId }, 'run cancelled');
    });
    await subscriber.subscribe(runCancellationChannel(this.settings.redisPrefix));
    this.subscriber = subscriber;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }
}
