import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { toWebhookResponse, UpdateWebhookDto, WebhookResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { WebhookChanges, WebhookRepository } from '@app/persistence';
import { requireDeliverableUrl, webhookNotFound } from './webhook-rules';

/** PUT /webhooks/{id}: a partial update of `url`, `events`, `description`, `active`. */
@Injectable()
export class UpdateWebhook {
  constructor(
    private readonly settings: Settings,
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
    const webhook = await this.webhooks.update({ orgId: caller.orgId }, id, defined);
    if (!webhook) throw webhookNotFound();
    return toWebhookResponse(webhook);
  }
}
