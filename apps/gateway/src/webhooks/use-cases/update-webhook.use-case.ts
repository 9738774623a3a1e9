import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Settings } from '@app/config';
import { toWebhookResponse, UpdateWebhookDto, WebhookResponse } from '@app/contracts';
import { auditActorOf, Caller } from '@app/identity';
import { recordAudit, WebhookChanges, WebhookRepository } from '@app/persistence';
import { requireDeliverableUrl, webhookNotFound } from './webhook-rules';

/** PUT /webhooks/{id}: a partial update of `url`, `events`, `description`, `active`. */
@Injectable()
export class UpdateWebhook {
  constructor(
    private readonly settings: Settings,
    private readonly db: DataSource,
    private readonly webhooks: WebhookRepository,
  ) {}

  async execute(caller: Caller, id: string, input: UpdateWebhookDto): Promise<WebhookResponse> {
    if (input.url !== undefined) await requireDeliverableUrl(input.url, this.settings.webhookAllowPrivate);
    const changes: WebhookChanges = {
      url: input.url,
      events: input.events,
      description: input.description,
      active: input.active,
    };
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    const webhook = await this.db.transaction(async (tx) => {
      const webhook = await this.webhooks.update({ orgId: caller.orgId }, id, defined, tx);
      if (!webhook) throw webhookNotFound();
      await recordAudit(tx, {
        orgId: caller.orgId,
        actor: auditActorOf(caller),
        action: 'webhook.updated',
        target: { type: 'webhook', id },
        details: { fields: Object.keys(defined), events: webhook.events, active: webhook.active },
      });
      return webhook;
    });
    return toWebhookResponse(webhook);
  }
}
