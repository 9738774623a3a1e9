import { Injectable } from '@nestjs/common';
import { toWebhookResponse, WebhookResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { WebhookRepository } from '@app/persistence';
import { webhookNotFound } from './webhook-rules';

/** GET /webhooks/{id}: without its secret. */
@Injectable()
export class GetWebhook {
  constructor(private readonly webhooks: WebhookRepository) {}

  async execute(caller: Caller, id: string): Promise<WebhookResponse> {
    const webhook = await this.webhooks.findVisible({ orgId: caller.orgId }, id);
    if (!webhook) throw webhookNotFound();
    return toWebhookResponse(webhook);
  }
}
