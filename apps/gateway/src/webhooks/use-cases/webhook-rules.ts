import { InvalidInputError, NotFoundError, valueErrorIssue } from '@app/contracts';
import { assertDeliverableUrl, UndeliverableUrlError } from '@app/webhooks';

export const WEBHOOK_NOT_FOUND = 'Webhook not found';

export const webhookNotFound = () => new NotFoundError(WEBHOOK_NOT_FOUND);

/** A URL that cannot be delivered to (not http(s), or a private address): 422 at `body.url`. */
export async function requireDeliverableUrl(url: string, allowPrivate: boolean): Promise<void> {
  try {
    await assertDeliverableUrl(url, allowPrivate);
  } catch (error) {
    if (!(error instanceof UndeliverableUrlError)) throw error;
    throw new InvalidInputError([valueErrorIssue(['body', 'url'], url, error.message)]);
  }
}
