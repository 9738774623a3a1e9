import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One `Idempotency-Key` an organization sent on a write (IETF draft httpapi-idempotency-key-header): the request's
 * fingerprint, and once it finished the answer to give to a retry. Kept in PostgreSQL so it survives Redis loss.
 */
@Entity('idempotency_keys')
export class IdempotencyKeyEntity {
  @PrimaryColumn({ name: 'org_id', type: 'uuid' })
  orgId: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key: string;

  /** SHA-256 of the method, route and body: the same key with another request is refused. */
  @Column({ type: 'char', length: 64 })
  fingerprint: string;

  /** Names the request holding the key, so one that outlived its lease cannot record an answer. */
  @Column({ name: 'claim_token', type: 'uuid', nullable: true })
  claimToken: string | null;

  /** Null while the first request is being processed. */
  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  /** Kept as sent (json, not jsonb, so a replay keeps the key order). */
  @Column({ name: 'response_body', type: 'json', nullable: true })
  responseBody: unknown;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
