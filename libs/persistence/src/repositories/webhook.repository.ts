import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { WebhookEvent } from '@app/contracts';
import { newId, WebhookAttemptEntity, WebhookDeliveryEntity, WebhookEntity } from '../entities';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';
import { webhookOutboxSql } from '../sql/webhook-outbox.sql';

type NewWebhook = Pick<WebhookEntity, 'url' | 'events' | 'description' | 'active' | 'secretEncrypted'>;
export type WebhookChanges = Partial<Pick<WebhookEntity, 'url' | 'events' | 'description' | 'active'>>;

/** A due try of a delivery, claimed by the sweep for a while so it is queued once. */
interface DueDelivery {
  deliveryId: string;
  attempt: number;
}

/** What one try came to, for the delivery row and its attempt row. */
export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  delivered: boolean;
  /** When to try again; null when delivered or given up. */
  nextAttemptAt: Date | null;
}

/**
 * The outbox rows of one event: one per active webhook of the organization subscribed to its type. Written
 * through `db`, the transaction of the state change it reports, so the event exists exactly when the change does.
 * (A reply's end writes its rows in the statement that ends it instead: see sql/reply-ending.)
 */
const RECORD_WEBHOOK_EVENT = webhookOutboxSql({ orgId: '$1', id: '$2', type: '$3', payload: '$4' });

// crosses tenants: in the caller's transaction as it is (a tenant's, or the worker's across organizations)
export async function recordWebhookEvent(db: Db, orgId: string, event: WebhookEvent): Promise<void> {
  await db.query(RECORD_WEBHOOK_EVENT, [orgId, event.id, event.type, JSON.stringify(event.payload)]);
}

/**
 * Webhook endpoints of an organization (CONTRACTS §14), and their deliveries: the outbox rows that a reply's
 * ending statement writes (see sql/reply-ending), claimed by the workers' sweep and settled one try at a time.
 */
@Injectable()
export class WebhookRepository {
  constructor(private readonly db: DataSource) {}

  async create(scope: Scope, values: NewWebhook, db: Db = this.db.manager): Promise<WebhookEntity> {
    return withTenant(db, scope, (tx) => {
      const repository = tx.getRepository(WebhookEntity);
      return repository.save(repository.create({ id: newId(), orgId: scope.orgId, ...values }));
    });
  }

  findVisible(scope: Scope, id: string, db: Db = this.db.manager): Promise<WebhookEntity | null> {
    return withTenant(db, scope, (tx) =>
      tx.getRepository(WebhookEntity).findOneBy({ id, orgId: scope.orgId }),
    );
  }

  /** Newest first. */
  listVisible(scope: Scope): Promise<WebhookEntity[]> {
    return withTenant(this.db, scope, (tx) =>
      tx
        .getRepository(WebhookEntity)
        .find({ where: { orgId: scope.orgId }, order: { createdAt: 'DESC', id: 'DESC' } }),
    );
  }

  /** The updated row, or null when there is no such webhook for the scope. */
  async update(
    scope: Scope,
    id: string,
    changes: WebhookChanges,
    db: Db = this.db.manager,
  ): Promise<WebhookEntity | null> {
    return withTenant(db, scope, async (tx) => {
      const result = await tx
        .getRepository(WebhookEntity)
        .update({ id, orgId: scope.orgId }, { ...changes, updatedAt: new Date() });
      return result.affected ? this.findVisible(scope, id, tx) : null;
    });
  }

  /** Its deliveries and attempts go with it. False when there was no such webhook. */
  async remove(scope: Scope, id: string, db: Db = this.db.manager): Promise<boolean> {
    const result = await withTenant(db, scope, (tx) =>
      tx.getRepository(WebhookEntity).delete({ id, orgId: scope.orgId }),
    );
    return (result.affected ?? 0) > 0;
  }

  /** The attempts of a webhook's deliveries, newest first. */
  attempts(scope: Scope, webhookId: string, limit: number): Promise<WebhookAttemptEntity[]> {
    return withTenant(this.db, scope, (tx) =>
      tx
        .getRepository(WebhookAttemptEntity)
        .createQueryBuilder('a')
        .innerJoin(WebhookEntity, 'w', 'w.id = a.webhook_id AND w.org_id = :orgId', { orgId: scope.orgId })
        .where('a.webhook_id = :webhookId', { webhookId })
        .orderBy('a.created_at', 'DESC')
        .addOrderBy('a.attempt', 'DESC')
        .limit(limit)
        .getMany(),
    );
  }

  /**
   * Claims up to `limit` deliveries whose next try is due and that no queued job owns, for `leaseMs`: each is
   * queued once per lease, and one whose job was lost (Redis flushed, worker killed) is claimed again after it.
   */
  // crosses tenants: the delivery sweep claims every organization's due deliveries
  async claimDue(limit: number, leaseMs: number): Promise<DueDelivery[]> {
    // An UPDATE answers [rows, count].
    const [rows]: [{ id: string; attempts: number }[], number] = await this.db.query(
      `UPDATE webhook_deliveries d SET leased_until = now() + make_interval(secs => $2::double precision / 1000)
       WHERE d.id IN (
         SELECT id FROM webhook_deliveries
         WHERE next_attempt_at <= now() AND (leased_until IS NULL OR leased_until < now())
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING d.id, d.attempts`,
      [limit, leaseMs],
    );
    return rows.map((row) => ({ deliveryId: row.id, attempt: row.attempts + 1 }));
  }

  /**
   * Deletes up to `limit` settled deliveries (delivered, or given up: no try left) created more than `olderThanMs`
   * ago, their attempts with them; returns how many. Oldest first, by the settled rows' age index.
   */
  // crosses tenants: the purge of settled deliveries covers every organization
  async purgeSettled(olderThanMs: number, limit: number): Promise<number> {
    const [, count] = (await this.db.query(
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries
         WHERE next_attempt_at IS NULL AND created_at < now() - make_interval(secs => $1::double precision / 1000)
         ORDER BY created_at LIMIT $2)`,
      [olderThanMs, limit],
    )) as [unknown, number];
    return count;
  }

  /** A delivery still owed, with its endpoint; null when done, gone, or already past try `attempt`. */
  // crosses tenants: the worker's delivery job names its delivery by id, whichever organization's
  async findOwed(
    deliveryId: string,
    attempt: number,
  ): Promise<{ delivery: WebhookDeliveryEntity; webhook: WebhookEntity } | null> {
    const delivery = await this.db
      .getRepository(WebhookDeliveryEntity)
      .findOneBy({ id: deliveryId, attempts: attempt - 1 });
    if (!delivery || delivery.nextAttemptAt === null) return null;
    const webhook = await this.db.getRepository(WebhookEntity).findOneBy({ id: delivery.webhookId });
    return webhook ? { delivery, webhook } : null;
  }

  /**
   * Settles try `attempt` of a delivery and records it, in one transaction; only the first writer of a try
   * counts (a duplicate job that also sent it records nothing). True when this call recorded it.
   */
  // crosses tenants: the worker's delivery job, on the delivery it holds
  async recordAttempt(
    delivery: WebhookDeliveryEntity,
    attempt: number,
    result: AttemptResult,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [settled]: [unknown[], number] = await tx.query(
        `UPDATE webhook_deliveries SET attempts = $2, next_attempt_at = $3, leased_until = NULL,
           delivered_at = CASE WHEN $4 THEN now() END
         WHERE id = $1 AND attempts = $2 - 1 RETURNING id`,
        [delivery.id, attempt, result.nextAttemptAt, result.delivered],
      );
      if (settled.length === 0) return false;
      await tx.getRepository(WebhookAttemptEntity).insert({
        id: newId(),
        deliveryId: delivery.id,
        webhookId: delivery.webhookId,
        eventId: delivery.eventId,
        type: delivery.type,
        attempt,
        statusCode: result.statusCode,
        error: result.error,
        nextAttemptAt: result.nextAttemptAt,
        deliveredAt: result.delivered ? new Date() : null,
      });
      return true;
    });
  }
}
