import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { WEBHOOK_DELIVERY_JOB } from '@app/queues';
import { JobHandlersHost } from '../jobs/job-handlers';
import { DeliverWebhookJobHandler } from './deliver-webhook.job-handler';

/** Consumes `webhook-delivery` jobs (declared a @Processor in WebhookDeliveryModule.forRoot): one try each. */
@Injectable()
export class WebhookDeliveryProcessor extends JobHandlersHost<typeof WEBHOOK_DELIVERY_JOB> {
  constructor(settings: Settings, deliverWebhook: DeliverWebhookJobHandler) {
    super(QUEUE.webhookDelivery, { [WEBHOOK_DELIVERY_JOB]: deliverWebhook }, settings.jobLockMs);
  }
}
