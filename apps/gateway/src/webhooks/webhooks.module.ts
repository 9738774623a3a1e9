import { Module } from '@nestjs/common';
import { WebhooksModule } from '@app/webhooks';
import { CreateWebhook } from './use-cases/create-webhook.use-case';
import { DeleteWebhook } from './use-cases/delete-webhook.use-case';
import { GetWebhook } from './use-cases/get-webhook.use-case';
import { ListWebhookDeliveries } from './use-cases/list-webhook-deliveries.use-case';
import { ListWebhooks } from './use-cases/list-webhooks.use-case';
import { UpdateWebhook } from './use-cases/update-webhook.use-case';
import { WebhooksController } from './webhooks.controller';

/** /webhooks routes; the secret cipher comes from the webhooks lib. */
@Module({
  imports: [WebhooksModule],
  controllers: [WebhooksController],
  providers: [CreateWebhook, ListWebhooks, GetWebhook, UpdateWebhook, DeleteWebhook, ListWebhookDeliveries],
})
export class WebhooksApiModule {}
