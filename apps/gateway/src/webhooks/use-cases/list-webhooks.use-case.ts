import { Injectable } from '@nestjs/common';
import { toWebhookResponse, WebhookResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { WebhookRepository } from '@app/persistence';

/** GET /webhooks: the organization's endpoints, newest first. */
@Injectable()
export class ListWebhooks {
  constructor(private readonly webhooks: WebhookRepository) {}

  async execute(caller: Caller): Promise<WebhookResponse[]> {
    return (await this.webhooks.listVisible({ orgId: caller.orgId })).map(toWebhookResponse);
  }
}
