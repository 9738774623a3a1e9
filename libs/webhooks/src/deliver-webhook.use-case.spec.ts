import { Settings } from '@app/config';
import {
  AttemptResult,
  CredentialCipher,
  WebhookDeliveryEntity,
  WebhookEntity,
  WebhookRepository,
} from '@app/persistence';
import { DeliverWebhook } from './deliver-webhook.use-case';
import { RETRY_WINDOW_MS } from './retry-schedule';
import { WebhookMetrics } from './webhook-metrics';
import { SendResult, SignedMessage, WebhookSender } from './webhook-sender';

const webhook = Object.assign(new WebhookEntity(), {
  id: 'w',
  url: 'https://hooks.example.com/parley',
  active: true,
  secretEncrypted: 'sealed',
});
const delivery = (createdAt = new Date()) =>
  Object.assign(new WebhookDeliveryEntity(), {
    id: 'd',
    webhookId: 'w',
    eventId: 'evt-1',
    payload: { type: 'message.completed', data: { id: 'm' } },
    createdAt,
  });

/** DeliverWebhook's collaborators in memory: what was sent, what was recorded, and how each answers. */
function world(
  options: {
    owed?: { delivery: WebhookDeliveryEntity; webhook: WebhookEntity } | null;
    answer?: SendResult;
    recorded?: boolean;
  } = {},
) {
  const sent: SignedMessage[] = [];
  const recorded: { attempt: number; result: AttemptResult }[] = [];
  const webhooks = {
    findOwed: () =>
      Promise.resolve(options.owed === undefined ? { delivery: delivery(), webhook } : options.owed),
    recordAttempt: (_delivery: WebhookDeliveryEntity, attempt: number, result: AttemptResult) => (
      recorded.push({ attempt, result }),
      Promise.resolve(options.recorded ?? true)
    ),
  };
  const cipher = { decrypt: (sealed: string) => `whsec_${sealed}` };
  const sender = {
    send: (message: SignedMessage) => (
      sent.push(message),
      Promise.resolve(options.answer ?? { statusCode: 204, error: null })
    ),
  };
  const metrics = new WebhookMetrics();
  const useCase = new DeliverWebhook(
    Object.assign(new Settings(), { webhookRetryBaseMs: 5000 }),
    webhooks as unknown as WebhookRepository,
    cipher as unknown as CredentialCipher,
    sender as unknown as WebhookSender,
    metrics,
  );
  /** Tries that ended with `outcome` so far (the counter is process-wide: compare before and after). */
  const countOf = async (outcome: string) =>
    (await metrics.deliveries.get()).values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
  return { useCase, sent, recorded, countOf };
}

const job = (attempt: number) => ({ deliveryId: 'd', attempt });

describe('DeliverWebhook', () => {
  it('sends the stored body, signed with the endpoint secret under the event id, and records it delivered', async () => {
    const { useCase, sent, recorded, countOf } = world();
    const before = await countOf('delivered');

    await useCase.execute(job(1));

    expect(sent).toEqual([
      {
        url: webhook.url,
        secret: 'whsec_sealed',
        eventId: 'evt-1',
        body: JSON.stringify({ type: 'message.completed', data: { id: 'm' } }),
      },
    ]);
    expect(recorded).toEqual([
      { attempt: 1, result: { statusCode: 204, error: null, delivered: true, nextAttemptAt: null } },
    ]);
    expect(await countOf('delivered')).toBe(before + 1);
  });

  it('records a failed try with the next one due twice as late as the one before', async () => {
    const { useCase, recorded, countOf } = world({ answer: { statusCode: 500, error: 'answered 500' } });
    const before = await countOf('retry');
    const sentAt = Date.now();

    await useCase.execute(job(3));

    const [{ result }] = recorded;
    expect(result).toMatchObject({ statusCode: 500, error: 'answered 500', delivered: false });
    // Third try failed: the fourth comes 5 s × 2² later.
    expect(result.nextAttemptAt!.getTime() - sentAt).toBeGreaterThanOrEqual(20_000);
    expect(result.nextAttemptAt!.getTime() - sentAt).toBeLessThan(21_000);
    expect(await countOf('retry')).toBe(before + 1);
  });

  it("gives up once the next try would fall past the event's 24 h window", async () => {
    const old = delivery(new Date(Date.now() - RETRY_WINDOW_MS + 1000));
    const { useCase, recorded, countOf } = world({
      owed: { delivery: old, webhook },
      answer: { statusCode: null, error: 'connection refused' },
    });
    const before = await countOf('gave_up');

    await useCase.execute(job(2));

    expect(recorded[0].result).toMatchObject({ delivered: false, nextAttemptAt: null });
    expect(await countOf('gave_up')).toBe(before + 1);
  });

  it('sends nothing for a try already recorded or a paused endpoint, and counts nothing for a try recorded by another', async () => {
    const settled = world({ owed: null });
    await settled.useCase.execute(job(1));
    expect([settled.sent, settled.recorded]).toEqual([[], []]);

    const paused = world({ owed: { delivery: delivery(), webhook: { ...webhook, active: false } } });
    await paused.useCase.execute(job(1));
    expect([paused.sent, paused.recorded]).toEqual([[], []]);

    const raced = world({ recorded: false });
    const before = await raced.countOf('delivered');
    await raced.useCase.execute(job(1));
    expect(raced.sent).toHaveLength(1);
    expect(await raced.countOf('delivered')).toBe(before);
  });
});
