import { Settings } from '@app/config';
import { WebhookDeliveryJob } from '@app/contracts';
import { WEBHOOK_DELIVERY_JOB } from '@app/queues';
import { DeliverWebhook } from '@app/webhooks';
import { UnknownJobError } from '../jobs/job-handlers';
import { memoryJob } from '../jobs/testing/memory-job';
import { DeliverWebhookJobHandler } from './deliver-webhook.job-handler';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';

/** The consumer's settings its processor reads: the lock duration. */
const WORKER_SETTINGS = { jobLockMs: 30000 } as Settings;

function world() {
  const tried: WebhookDeliveryJob[] = [];
  const deliverWebhook = {
    execute: (job: WebhookDeliveryJob) => (tried.push(job), Promise.resolve()),
  } as unknown as DeliverWebhook;
  return {
    processor: new WebhookDeliveryProcessor(WORKER_SETTINGS, new DeliverWebhookJobHandler(deliverWebhook)),
    tried,
  };
}

describe('WebhookDeliveryProcessor', () => {
  it(`tries the delivery of a "${WEBHOOK_DELIVERY_JOB}" job once, at the attempt its data names`, async () => {
    const { processor, tried } = world();
    await processor.process(memoryJob(WEBHOOK_DELIVERY_JOB, { deliveryId: 'd1', attempt: 3 }).job);
    expect(tried).toEqual([{ deliveryId: 'd1', attempt: 3 }]);
  });

  it('fails a job of a name it does not know, trying nothing', async () => {
    const { processor, tried } = world();
    await expect(
      processor.process(memoryJob('deliver', { deliveryId: 'd1', attempt: 1 }).job),
    ).rejects.toThrow(new UnknownJobError('webhook-delivery', 'deliver', [WEBHOOK_DELIVERY_JOB]));
    expect(tried).toEqual([]);
  });
});
