import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, IntegerColumn, UuidColumn } from './columns';

/**
 * One `Idempotency-Key` an organization's caller sent on a write (IETF draft httpapi-idempotency-key-header): the
 * request's fingerprint, and once it finished the answer to give to a retry. Kept in PostgreSQL so it survives
 * Redis loss. The key space is the organization's and end user's: one end user never replays another's answer.
 */
@Entity('idempotency_keys')
export class IdempotencyKeyEntity {
  @PrimaryColumn({ name: 'org_id', type: 'uuid' })
  orgId: string;

  /** The end user the request acted as ('' for a service key's request naming none). */
  @PrimaryColumn({ name: 'user_id', type: 'text' })
  userId: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key: string;

  /** The thread the answer belongs to: erased with it. */
  @UuidColumn({ name: 'thread_id', nullable: true })
  threadId: string | null;

  /** SHA-256 of the method, route and body: the same key with another request is refused. */
  @Column({ type: 'char', length: 64 })
  fingerprint: string;

  /** Names the request holding the key, so one that outlived its lease cannot record an answer. */
  @UuidColumn({ name: 'claim_token', nullable: true })
  claimToken: string | null;

  /** Null while the first request is being processed. */
  @IntegerColumn({ name: 'status_code', nullable: true })
  statusCode: number | null;

  /** Kept as sent (json, not jsonb, so a replay keeps the key order). */
  @Column({ name: 'response_body', type: 'json', nullable: true })
  responseBody: unknown;

  @CreatedAtColumn()
  createdAt: Date;
}
