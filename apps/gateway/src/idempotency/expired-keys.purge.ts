import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { IdempotencyKeyRepository } from '@app/persistence';
import { IDEMPOTENCY_WINDOW } from './idempotency-window';

const PURGE_INTERVAL_MS = 3600 * 1000;

/** Deletes idempotency keys past their retention once an hour, so the table holds about one day of writes. */
@Injectable()
export class ExpiredKeysPurge implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ExpiredKeysPurge.name);
  private timer?: NodeJS.Timeout;

  constructor(private readonly keys: IdempotencyKeyRepository) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.keys.purgeExpired(IDEMPOTENCY_WINDOW.retentionMs).then(
        (purged) => purged > 0 && this.logger.log({ purged }, 'expired idempotency keys purged'),
        (error: Error) => this.logger.warn({ err: error }, 'idempotency key purge failed'),
      );
    }, PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
