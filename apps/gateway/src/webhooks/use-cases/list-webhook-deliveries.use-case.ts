import { Injectable } from '@nestjs/common';
import {
  ListWebhookDeliveriesQuery,
  toWebhookDeliveryResponse,
  WEBHOOK_DELIVERIES_DEFAULT_LIMIT,
  WebhookDeliveryResponse,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { WebhookRepository } from '@app/persistence';
import { webhookNotFound } from './webhook-rules';

/** GET /webhooks/{id}/deliveries: every try, newest first. */
@Injectable()
export class ListWebhookDeliveries {
  constructor(private readonly webhooks: WebhookRepository) {}

  async execute(
    caller: Caller,
    id: string,
    query: ListWebhookDeliveriesQuery,
  ): Promise<WebhookDeliveryResponse[]> {
    const scope = { orgId: caller.orgId };
    if (!(await this.webhooks.findVisible(scope, id))) throw webhookNotFound();
    const attempts = await this.webhooks.attempts(scope, id, query.limit ?? WEBHOOK_DELIVERIES_DEFAULT_LIMIT);
    return attempts.map(toWebhookDeliveryResponse);
  }
}
