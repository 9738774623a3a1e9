import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { WebhookEventType } from '@app/contracts';

/** An endpoint an organization registered; the signing secret is ciphertext only. */
@Entity('webhooks')
export class WebhookEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'org_id', type: 'uuid' })
  orgId: string;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'text', array: true })
  events: WebhookEventType[];

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'boolean', default: true })
  active: boolean;

  /** AES-256-GCM envelope of the `whsec_…` secret (libs/knowledge CredentialCipher). */
  @Column({ name: 'secret_encrypted', type: 'text' })
  secretEncrypted: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

/**
 * One event owed to one endpoint (the outbox row): written with the state change it reports, delivered until a
 * 2xx or until 24 h have passed. `next_attempt_at` null means done (delivered or given up).
 */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId: string;

  /** The `webhook-id` header: the same on every retry. */
  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;

  @Column({ type: 'text' })
  type: WebhookEventType;

  /** `{"type", "timestamp", "data"}`, exactly the body sent. */
  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  /** The thread the payload names (`data.thread_id`), set by PostgreSQL on insert: its erasure finds the row. */
  @Column({ name: 'thread_id', type: 'text', nullable: true })
  threadId: string | null;

  /** The end users the payload names, set by PostgreSQL on insert: their erasure finds the row. */
  @Column({ name: 'end_user_ids', type: 'text', array: true, nullable: true })
  endUserIds: string[] | null;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  /** Until when a queued job owns the due row: the sweep queues it again only after that. */
  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil: Date | null;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}

/** One try at delivering an event, as GET /webhooks/{id}/deliveries lists it. */
@Entity('webhook_attempts')
export class WebhookAttemptEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'delivery_id', type: 'uuid' })
  deliveryId: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId: string;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;

  @Column({ type: 'text' })
  type: WebhookEventType;

  /** 1 for the first try. */
  @Column({ type: 'integer' })
  attempt: number;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** When the next try is due; null after a success or the last try. */
  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
