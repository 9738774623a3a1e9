import { WorkerHost } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { WebhookDeliveryJob } from '@app/contracts';
import { DeliverWebhook } from '@app/webhooks';

/** Consumes `webhook-delivery` jobs (declared a @Processor in WebhookDeliveryModule.forRoot): one try each. */
@Injectable()
export class WebhookDeliveryProcessor extends WorkerHost {
  constructor(private readonly deliverWebhook: DeliverWebhook) {
    super();
  }

  async process(job: Job<WebhookDeliveryJob>): Promise<void> {
    await this.deliverWebhook.execute(job.data);
  }
}
