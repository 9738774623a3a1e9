/** An event for the outbox, each field an SQL expression (a parameter, a literal, a column of the source). */
export interface OutboxEventSql {
  orgId: string;
  id: string;
  type: string;
  payload: string;
}

/**
 * The outbox rows of one event: one per active webhook of the organization subscribed to its type (CONTRACTS §14).
 * Written by the statement of the change it reports (a reply's end, a rating) or in its transaction, so the event
 * exists exactly when the change does. `source`, a FROM item (the changed rows), when the event's fields read it:
 * no row there, no event.
 */
export const webhookOutboxSql = (event: OutboxEventSql, source?: string): string =>
  `INSERT INTO webhook_deliveries (id, webhook_id, event_id, type, payload, next_attempt_at)
     SELECT gen_random_uuid(), w.id, ${event.id}, ${event.type}, ${event.payload}, now()
     FROM ${source ? `${source}, ` : ''}webhooks w
     WHERE w.org_id = ${event.orgId} AND w.active AND ${event.type} = ANY (w.events)`;
