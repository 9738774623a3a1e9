import { Injectable, Logger } from '@nestjs/common';
import { Settings } from '@app/config';
import { WebhookDeliveryJob } from '@app/contracts';
import { CredentialCipher, WebhookRepository } from '@app/persistence';
import { nextRetryAt } from './retry-schedule';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookSender } from './webhook-sender';

/**
 * One try of one delivery (the `webhook-delivery` job): sends the stored body to the endpoint, then records
 * the try and, on failure, when the next one is due. A try already recorded, or a delivery already settled,
 * is skipped, so a job run twice sends at most once more (at-least-once, as Standard Webhooks expects).
 */
@Injectable()
export class DeliverWebhook {
  private readonly logger = new Logger(DeliverWebhook.name);

  constructor(
    private readonly settings: Settings,
    private readonly webhooks: WebhookRepository,
    private readonly cipher: CredentialCipher,
    private readonly sender: WebhookSender,
    private readonly metrics: WebhookMetrics,
  ) {}

  async execute(job: WebhookDeliveryJob): Promise<void> {
    const owed = await this.webhooks.findOwed(job.deliveryId, job.attempt);
    if (!owed) return;
    const { delivery, webhook } = owed;
    // A paused endpoint keeps its events: they go out once it is active again.
    if (!webhook.active) return;
    const sent = await this.sender.send({
      url: webhook.url,
      secret: this.cipher.decrypt(webhook.secretEncrypted) as string,
      eventId: delivery.eventId,
      body: JSON.stringify(delivery.payload),
    });
    const delivered = sent.error === null;
    const nextAttemptAt = delivered
      ? null
      : nextRetryAt(delivery.createdAt, job.attempt, new Date(), this.settings.webhookRetryBaseMs);
    const recorded = await this.webhooks.recordAttempt(delivery, job.attempt, {
      ...sent,
      delivered,
      nextAttemptAt,
    });
    if (!recorded) return;
    const outcome = delivered ? 'delivered' : nextAttemptAt ? 'retry' : 'gave_up';
    this.metrics.deliveries.inc({ outcome });
    const log = {
      deliveryId: delivery.id,
      webhookId: webhook.id,
      attempt: job.attempt,
      statusCode: sent.statusCode,
    };
    if (delivered) this.logger.log(log, 'webhook delivered');
    else this.logger.warn({ ...log, error: sent.error, outcome }, 'webhook delivery failed');
  }
}
