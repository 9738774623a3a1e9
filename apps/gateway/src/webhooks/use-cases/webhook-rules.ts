import { InvalidInputError, NotFoundError, valueErrorIssue } from '@app/contracts';
import { assertEgressUrl, EgressUrlError } from '@app/egress';

const WEBHOOK_NOT_FOUND = 'Webhook not found';

export const webhookNotFound = () => new NotFoundError(WEBHOOK_NOT_FOUND);

/** A URL that cannot be delivered to (not http(s), or a private address): 422 at `body.url`. */
export async function requireDeliverableUrl(url: string, allowPrivate: boolean): Promise<void> {
  try {
    await assertEgressUrl(url, allowPrivate);
  } catch (error) {
    if (!(error instanceof EgressUrlError)) throw error;
    throw new InvalidInputError([valueErrorIssue(['body', 'url'], url, error.message)]);
  }
}
