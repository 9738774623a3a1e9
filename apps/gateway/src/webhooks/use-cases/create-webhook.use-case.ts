import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { CreatedWebhookResponse, CreateWebhookDto, toWebhookResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { CredentialCipher, WebhookRepository } from '@app/persistence';
import { newWebhookSecret } from '@app/webhooks';
import { requireDeliverableUrl } from './webhook-rules';

/** POST /webhooks: registers an endpoint of the organization; its secret is stored encrypted and shown only here. */
@Injectable()
export class CreateWebhook {
  constructor(
    private readonly settings: Settings,
    private readonly webhooks: WebhookRepository,
    private readonly cipher: CredentialCipher,
  ) {}

  async execute(caller: Caller, input: CreateWebhookDto): Promise<CreatedWebhookResponse> {
    await requireDeliverableUrl(input.url, this.settings.webhookAllowPrivate);
    const secret = newWebhookSecret();
    const webhook = await this.webhooks.create(
      { orgId: caller.orgId },
      {
        url: input.url,
        events: input.events,
        description: input.description ?? null,
        active: input.active ?? true,
        secretEncrypted: this.cipher.encrypt(secret),
      },
    );
    return { ...toWebhookResponse(webhook), secret };
  }
}
