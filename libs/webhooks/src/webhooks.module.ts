import { Module } from '@nestjs/common';
import { CredentialCipherModule } from '@app/persistence';
import { DeliverWebhook } from './deliver-webhook.use-case';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookSender } from './webhook-sender';

/** Webhook secrets (encrypted like connection credentials) and delivery, for the gateway and the worker. */
@Module({
  imports: [CredentialCipherModule],
  providers: [WebhookSender, WebhookMetrics, DeliverWebhook],
  exports: [CredentialCipherModule, WebhookSender, WebhookMetrics, DeliverWebhook],
})
export class WebhooksModule {}
