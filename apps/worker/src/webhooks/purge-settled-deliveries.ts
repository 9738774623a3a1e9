import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { WebhookRepository } from '@app/persistence';
import { REDIS } from '@app/redis';
import { LockedSweep } from '../sweeps/locked-sweep';

/**
 * How long a settled delivery (and its attempts, GET /webhooks/{id}/deliveries) is kept: a month of history to
 * look back on, and no more, so the table holds about a month of events whatever the deployment's age.
 */
const SETTLED_DELIVERY_RETENTION_MS = 30 * 24 * 3600 * 1000;
const PURGE_INTERVAL_MS = 3600 * 1000;
/** Rows deleted per statement: a large backlog goes in short statements. */
const PURGE_BATCH = 1000;

/**
 * Once an hour, one worker (LockedSweep) deletes the webhook deliveries that were delivered or given up more than
 * SETTLED_DELIVERY_RETENTION_MS ago. Without it the outbox grew for ever with every event's payload.
 */
@Injectable()
export class PurgeSettledDeliveries implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PurgeSettledDeliveries.name);
  private readonly timer: LockedSweep;

  constructor(
    settings: Settings,
    private readonly webhooks: WebhookRepository,
    @Inject(REDIS) redis: Redis,
  ) {
    this.timer = new LockedSweep(redis, settings.redisPrefix, ['webhooks', 'purge-lock'], PURGE_INTERVAL_MS);
  }

  onApplicationBootstrap(): void {
    this.timer.start(() => this.purge(), this.logger, 'webhook delivery purge failed');
  }

  onApplicationShutdown(): void {
    this.timer.stop();
  }

  /** One pass (none when another worker took this interval's): how many deliveries were deleted. */
  async purge(): Promise<number> {
    if (!(await this.timer.take())) return 0;
    let purged = 0;
    for (;;) {
      const deleted = await this.webhooks.purgeSettled(SETTLED_DELIVERY_RETENTION_MS, PURGE_BATCH);
      purged += deleted;
      if (deleted < PURGE_BATCH) break;
    }
    if (purged > 0) this.logger.log({ purged }, 'settled webhook deliveries purged');
    return purged;
  }
}
