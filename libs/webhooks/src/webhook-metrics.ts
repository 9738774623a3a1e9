import { Injectable } from '@nestjs/common';
import { counter } from '@app/observability';

/** Webhook tries by outcome: `delivered`, `retry` (failed, another try is due), `gave_up` (failed, the last). */
@Injectable()
export class WebhookMetrics {
  readonly deliveries = counter(
    'webhook_deliveries_total',
    'Webhook delivery attempts, by outcome (delivered, retry, gave_up)',
    ['outcome'],
  );
}
