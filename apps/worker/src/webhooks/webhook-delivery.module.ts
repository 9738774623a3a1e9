import { DynamicModule, Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { WebhooksModule } from '@app/webhooks';
import { declareConsumer } from '../jobs/declare-consumer';
import { DeliverWebhookJobHandler } from './deliver-webhook.job-handler';
import { PurgeSettledDeliveries } from './purge-settled-deliveries';
import { SweepDueDeliveries } from './sweep-due-deliveries';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';

/** Tries a few endpoints at once per worker: each try waits on a remote server, not on this CPU. */
const DELIVERY_CONCURRENCY = 16;

/**
 * Webhook delivery on this worker: the sweep that queues due tries, the `webhook-delivery` consumer, and the
 * purge of settled deliveries.
 */
@Module({})
export class WebhookDeliveryModule {
  static forRoot(settings: Settings): DynamicModule {
    declareConsumer(WebhookDeliveryProcessor, QUEUE.webhookDelivery, settings, {
      concurrency: DELIVERY_CONCURRENCY,
    });
    return {
      module: WebhookDeliveryModule,
      imports: [QueuesModule, WebhooksModule],
      providers: [
        WebhookDeliveryProcessor,
        DeliverWebhookJobHandler,
        SweepDueDeliveries,
        PurgeSettledDeliveries,
      ],
    };
  }
}
