import { Injectable } from '@nestjs/common';
import { Counter, register } from 'prom-client';

/** Webhook tries by outcome: `delivered`, `retry` (failed, another try is due), `gave_up` (failed, the last). */
@Injectable()
export class WebhookMetrics {
  readonly deliveries =
    (register.getSingleMetric('webhook_deliveries_total') as Counter<'outcome'> | undefined) ??
    new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome (delivered, retry, gave_up)',
      labelNames: ['outcome'],
    });
}
