import { WorkerHost } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { WEBHOOK_DELIVERY_JOB } from '@app/queues';
import { JobHandlers } from '../jobs/job-handlers';
import { DeliverWebhookJobHandler } from './deliver-webhook.job-handler';

/** Consumes `webhook-delivery` jobs (declared a @Processor in WebhookDeliveryModule.forRoot): one try each. */
@Injectable()
export class WebhookDeliveryProcessor extends WorkerHost {
  private readonly handlers: JobHandlers<typeof WEBHOOK_DELIVERY_JOB>;

  constructor(settings: Settings, deliverWebhook: DeliverWebhookJobHandler) {
    super();
    this.handlers = new JobHandlers(
      QUEUE.webhookDelivery,
      { [WEBHOOK_DELIVERY_JOB]: deliverWebhook },
      settings.jobLockMs,
    );
  }

  process(job: Job, token?: string): Promise<void> {
    return this.handlers.handle(job, token);
  }
}
