import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { auditActorOf, Caller } from '@app/identity';
import { recordAudit, WebhookRepository } from '@app/persistence';
import { webhookNotFound } from './webhook-rules';

/** DELETE /webhooks/{id}: the endpoint and the deliveries still owed to it. */
@Injectable()
export class DeleteWebhook {
  constructor(
    private readonly db: DataSource,
    private readonly webhooks: WebhookRepository,
  ) {}

  async execute(caller: Caller, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (!(await this.webhooks.remove({ orgId: caller.orgId }, id, tx))) throw webhookNotFound();
      await recordAudit(tx, {
        orgId: caller.orgId,
        actor: auditActorOf(caller),
        action: 'webhook.deleted',
        target: { type: 'webhook', id },
      });
    });
  }
}
