import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Settings } from '@app/config';
import { WebhookRepository } from '@app/persistence';
import { WebhookDeliveryQueue } from '@app/queues';

/** Deliveries claimed per pass. */
const BATCH = 200;

/**
 * PostgreSQL says which deliveries are due (new events from the outbox, retries whose time has come); every
 * worker claims a batch now and then (SKIP LOCKED, so two never claim the same row) and queues one try each.
 * Nothing about a delivery lives only in Redis, so no restart of any process loses one.
 */
@Injectable()
export class SweepDueDeliveries implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SweepDueDeliveries.name);
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly settings: Settings,
    private readonly webhooks: WebhookRepository,
    private readonly queue: WebhookDeliveryQueue,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.settings.webhookSweepIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One pass: the number of tries queued. */
  async sweep(): Promise<number> {
    let queued = 0;
    for (;;) {
      // Past the lease (WEBHOOK_LEASE_MS) a claimed row is claimed again: a try whose job was lost still happens.
      const due = await this.webhooks.claimDue(BATCH, this.settings.webhookLeaseMs);
      await this.queue.enqueue(due);
      queued += due.length;
      if (due.length < BATCH) return queued;
    }
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.sweep();
    } catch (error) {
      this.logger.warn({ err: error }, 'webhook sweep failed');
    } finally {
      this.running = false;
    }
  }
}
