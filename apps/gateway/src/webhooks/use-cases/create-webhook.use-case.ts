import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Settings } from '@app/config';
import { CreatedWebhookResponse, CreateWebhookDto, toWebhookResponse } from '@app/contracts';
import { auditActorOf, Caller } from '@app/identity';
import { CredentialCipher, recordAudit, WebhookRepository } from '@app/persistence';
import { newWebhookSecret } from '@app/webhooks';
import { requireDeliverableUrl } from './webhook-rules';

/** POST /webhooks: registers an endpoint of the organization; its secret is stored encrypted and shown only here. */
@Injectable()
export class CreateWebhook {
  constructor(
    private readonly settings: Settings,
    private readonly db: DataSource,
    private readonly webhooks: WebhookRepository,
    private readonly cipher: CredentialCipher,
  ) {}

  async execute(caller: Caller, input: CreateWebhookDto): Promise<CreatedWebhookResponse> {
    await requireDeliverableUrl(input.url, this.settings.webhookAllowPrivate);
    const secret = newWebhookSecret();
    const webhook = await this.db.transaction(async (tx) => {
      const webhook = await this.webhooks.create(
        { orgId: caller.orgId },
        {
          url: input.url,
          events: input.events,
          description: input.description ?? null,
          active: input.active ?? true,
          secretEncrypted: this.cipher.encrypt(secret),
        },
        tx,
      );
      // Not the URL: one may carry a token in its query; not the secret, ever.
      await recordAudit(tx, {
        orgId: caller.orgId,
        actor: auditActorOf(caller),
        action: 'webhook.created',
        target: { type: 'webhook', id: webhook.id },
        details: { events: webhook.events, active: webhook.active },
      });
      return webhook;
    });
    return { ...toWebhookResponse(webhook), secret };
  }
}
