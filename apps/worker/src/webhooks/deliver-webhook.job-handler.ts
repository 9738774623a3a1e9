import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { WebhookDeliveryJob } from '@app/contracts';
import { DeliverWebhook } from '@app/webhooks';
import { JobHandler } from '../jobs/job-handlers';

/** WEBHOOK_DELIVERY_JOB, one try of one delivery. */
@Injectable()
export class DeliverWebhookJobHandler implements JobHandler<WebhookDeliveryJob> {
  constructor(private readonly deliverWebhook: DeliverWebhook) {}

  async handle(job: Job<WebhookDeliveryJob>): Promise<void> {
    await this.deliverWebhook.execute(job.data);
  }
}
