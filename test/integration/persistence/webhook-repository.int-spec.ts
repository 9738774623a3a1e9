import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { webhookEvent } from '@app/contracts';
import { WebhookRepository } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';
import { doneOutcome } from './stored-thread';

/**
 * The webhook outbox on real PostgreSQL: a reply's end writes one delivery per subscribed active endpoint of its
 * organization in the final statement; due deliveries are claimed once per lease; a try is recorded once.
 */
describe('webhook outbox and deliveries', () => {
  const database = useTestDatabase();
  let db: DataSource;
  let webhooks: WebhookRepository;
  const orgId = randomUUID();
  const otherOrgId = randomUUID();
  const agentId = randomUUID();
  const outcome = doneOutcome();

  beforeAll(async () => {
    db = database.db;
    webhooks = new WebhookRepository(db);
    await database.addOrganizations(orgId, otherOrgId);
    await db.query(`INSERT INTO agents (id, org_id, name) VALUES ($1, $2, 'a')`, [agentId, orgId]);
  });

  async function reply() {
    const thread = database.threads.build(
      { orgId, userId: 'u1' },
      { agentId, name: 't', projectId: null, memoryNamespace: null },
    );
    const { reply } = await database.messages.startThread({ orgId }, thread, {
      message: { content: 'hi', fileIds: [], sourceIds: null, documentIds: null, disabledTools: null },
      reply: { agentId, maxSteps: 4 },
    });
    return reply;
  }

  const hook = (scopeOrg: string, events: ('message.completed' | 'message.failed')[], active = true) =>
    webhooks.create(
      { orgId: scopeOrg },
      { url: 'http://h/x', events, description: null, active, secretEncrypted: 'x' },
    );

  it("writes one delivery per subscribed active endpoint of the reply's organization, once", async () => {
    const subscribed = await hook(orgId, ['message.completed']);
    await hook(orgId, ['message.failed']);
    await hook(orgId, ['message.completed'], false);
    await hook(otherOrgId, ['message.completed']);
    const ended = await reply();
    const event = webhookEvent('message.completed', { id: ended.id });

    expect(await database.runs.finish(ended.id, outcome, event)).not.toBeNull();
    expect(await database.runs.finish(ended.id, outcome, webhookEvent('message.completed', {}))).toBeNull();

    const rows: { webhook_id: string; event_id: string; type: string; payload: unknown }[] = await db.query(
      `SELECT webhook_id, event_id, type, payload FROM webhook_deliveries`,
    );
    expect(rows).toEqual([
      { webhook_id: subscribed.id, event_id: event.id, type: 'message.completed', payload: event.payload },
    ]);
  });

  it('claims a due delivery once per lease, and records a try once', async () => {
    const due = await webhooks.claimDue(10, 60_000);
    expect(due).toEqual([{ deliveryId: expect.any(String), attempt: 1 }]);
    expect(await webhooks.claimDue(10, 60_000)).toEqual([]);

    const owed = await webhooks.findOwed(due[0].deliveryId, 1);
    expect(owed).not.toBeNull();
    const retryAt = new Date(Date.now() - 1000);
    const failed = { statusCode: 500, error: 'HTTP 500', delivered: false, nextAttemptAt: retryAt };
    expect(await webhooks.recordAttempt(owed!.delivery, 1, failed)).toBe(true);
    expect(await webhooks.recordAttempt(owed!.delivery, 1, failed)).toBe(false);
    expect(await webhooks.findOwed(due[0].deliveryId, 1)).toBeNull();

    // Recording a try releases the lease: the retry is due at once.
    expect(await webhooks.claimDue(10, 60_000)).toEqual([{ deliveryId: due[0].deliveryId, attempt: 2 }]);
    const second = await webhooks.findOwed(due[0].deliveryId, 2);
    await webhooks.recordAttempt(second!.delivery, 2, {
      statusCode: 204,
      error: null,
      delivered: true,
      nextAttemptAt: null,
    });
    expect(await webhooks.claimDue(10, 0)).toEqual([]);
    const listed = await webhooks.attempts({ orgId }, owed!.webhook.id, 10);
    expect(
      listed.map((attempt) => [attempt.attempt, attempt.statusCode, attempt.deliveredAt !== null]),
    ).toEqual([
      [2, 204, true],
      [1, 500, false],
    ]);
    expect(await webhooks.attempts({ orgId: otherOrgId }, owed!.webhook.id, 10)).toEqual([]);
  });

  it('derives the thread and end users a payload names into columns, whichever statement wrote the row', async () => {
    const rows: { thread_id: string | null; end_user_ids: string[] }[] = await db.query(
      `SELECT thread_id, end_user_ids FROM webhook_deliveries`,
    );
    expect(rows).toEqual([{ thread_id: null, end_user_ids: [] }]);
    const ended = await reply();
    await database.runs.finish(
      ended.id,
      outcome,
      webhookEvent('message.completed', { id: ended.id, thread_id: ended.threadId, user_id: 'u1' }),
    );
    const [row]: { thread_id: string; end_user_ids: string[] }[] = await db.query(
      `SELECT thread_id, end_user_ids FROM webhook_deliveries WHERE payload -> 'data' ->> 'id' = $1`,
      [ended.id],
    );
    expect(row).toEqual({ thread_id: ended.threadId, end_user_ids: ['u1'] });
  });

  it('purges settled deliveries older than the window with their attempts, keeping owed ones', async () => {
    const [{ n: before }] = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries`);
    // The settled delivery of the test above, now old; the one just written is still owed.
    await db.query(
      `UPDATE webhook_deliveries SET created_at = now() - interval '40 days' WHERE next_attempt_at IS NULL`,
    );
    expect(await webhooks.purgeSettled(30 * 24 * 3600 * 1000, 1000)).toBe(1);
    const [{ n: after }] = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries`);
    expect(after).toBe(before - 1);
    expect(await db.query(`SELECT 1 FROM webhook_attempts`)).toEqual([]);
    expect(await webhooks.purgeSettled(30 * 24 * 3600 * 1000, 1000)).toBe(0);
  });
});
