import { Module } from '@nestjs/common';
import { CryptoModule } from '@app/crypto';
import { DeliverWebhook } from './deliver-webhook.use-case';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookSender } from './webhook-sender';

/** Webhook secrets (encrypted like connection credentials) and delivery, for the gateway and the worker. */
@Module({
  imports: [CryptoModule],
  providers: [WebhookSender, WebhookMetrics, DeliverWebhook],
  exports: [CryptoModule, WebhookSender, WebhookMetrics, DeliverWebhook],
})
export class WebhooksModule {}
