import { Entity } from 'typeorm';
import type { WebhookEventType } from '@app/contracts';
import {
  BooleanColumn,
  CreatedAtColumn,
  IdColumn,
  IntegerColumn,
  JsonbColumn,
  OrgIdColumn,
  TextColumn,
  TimestampColumn,
  UpdatedAtColumn,
  UuidColumn,
} from './columns';

/** An endpoint an organization registered; the signing secret is ciphertext only. */
@Entity('webhooks')
export class WebhookEntity {
  @IdColumn()
  id: string;

  @OrgIdColumn()
  orgId: string;

  @TextColumn()
  url: string;

  @TextColumn({ array: true })
  events: WebhookEventType[];

  @TextColumn({ nullable: true })
  description: string | null;

  @BooleanColumn({ default: true })
  active: boolean;

  /** AES-256-GCM envelope of the `whsec_…` secret (libs/knowledge CredentialCipher). */
  @TextColumn({ name: 'secret_encrypted' })
  secretEncrypted: string;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}

/**
 * One event owed to one endpoint (the outbox row): written with the state change it reports, delivered until a
 * 2xx or until 24 h have passed. `next_attempt_at` null means done (delivered or given up).
 */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @IdColumn()
  id: string;

  @UuidColumn({ name: 'webhook_id' })
  webhookId: string;

  /** The `webhook-id` header: the same on every retry. */
  @UuidColumn({ name: 'event_id' })
  eventId: string;

  @TextColumn()
  type: WebhookEventType;

  /** `{"type", "timestamp", "data"}`, exactly the body sent. */
  @JsonbColumn()
  payload: Record<string, unknown>;

  /** The thread the payload names (`data.thread_id`), set by PostgreSQL on insert: its erasure finds the row. */
  @TextColumn({ name: 'thread_id', nullable: true })
  threadId: string | null;

  /** The end users the payload names, set by PostgreSQL on insert: their erasure finds the row. */
  @TextColumn({ name: 'end_user_ids', array: true, nullable: true })
  endUserIds: string[] | null;

  @IntegerColumn({ default: 0 })
  attempts: number;

  @TimestampColumn({ name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;

  /** Until when a queued job owns the due row: the sweep queues it again only after that. */
  @TimestampColumn({ name: 'leased_until', nullable: true })
  leasedUntil: Date | null;

  @TimestampColumn({ name: 'delivered_at', nullable: true })
  deliveredAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;
}

/** One try at delivering an event, as GET /webhooks/{id}/deliveries lists it. */
@Entity('webhook_attempts')
export class WebhookAttemptEntity {
  @IdColumn()
  id: string;

  @UuidColumn({ name: 'delivery_id' })
  deliveryId: string;

  @UuidColumn({ name: 'webhook_id' })
  webhookId: string;

  @UuidColumn({ name: 'event_id' })
  eventId: string;

  @TextColumn()
  type: WebhookEventType;

  /** 1 for the first try. */
  @IntegerColumn()
  attempt: number;

  @IntegerColumn({ name: 'status_code', nullable: true })
  statusCode: number | null;

  @TextColumn({ nullable: true })
  error: string | null;

  /** When the next try is due; null after a success or the last try. */
  @TimestampColumn({ name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;

  @TimestampColumn({ name: 'delivered_at', nullable: true })
  deliveredAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;
}
