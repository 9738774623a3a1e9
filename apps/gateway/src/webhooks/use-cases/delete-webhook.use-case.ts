import { Injectable } from '@nestjs/common';
import { Caller } from '@app/identity';
import { WebhookRepository } from '@app/persistence';
import { webhookNotFound } from './webhook-rules';

/** DELETE /webhooks/{id}: the endpoint and the deliveries still owed to it. */
@Injectable()
export class DeleteWebhook {
  constructor(private readonly webhooks: WebhookRepository) {}

  async execute(caller: Caller, id: string): Promise<void> {
    if (!(await this.webhooks.remove({ orgId: caller.orgId }, id))) throw webhookNotFound();
  }
}
