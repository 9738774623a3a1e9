import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { QUEUE, WebhookDeliveryJob } from '@app/contracts';

const WEBHOOK_DELIVERY_JOB = 'deliver-webhook';

/**
 * Queues tries of webhook deliveries. PostgreSQL decides what is due (webhook_deliveries); a job only carries
 * a try, under an id per try, so queueing one twice while it waits is a no-op.
 */
@Injectable()
export class WebhookDeliveryQueue {
  constructor(@InjectQueue(QUEUE.webhookDelivery) private readonly queue: Queue<WebhookDeliveryJob>) {}

  async enqueue(jobs: WebhookDeliveryJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.queue.addBulk(
      jobs.map((data) => ({
        name: WEBHOOK_DELIVERY_JOB,
        data,
        // Retries are the delivery row's own schedule (CONTRACTS §14), not the job's.
        opts: { jobId: `${data.deliveryId}-${data.attempt}`, removeOnComplete: true, removeOnFail: 1000 },
      })),
    );
  }
}
