import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (CONTRACTS §14): the endpoints an organization registers; one delivery row per event and endpoint,
 * written in the same statement as the state change it reports (the outbox), which workers deliver until it
 * succeeds or 24 h have passed; and one row per attempt, for GET /webhooks/{id}/deliveries.
 */
export class Webhooks1765600100000 implements MigrationInterface {
  name = 'Webhooks1765600100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL,
        description text,
        active boolean NOT NULL DEFAULT true,
        secret_encrypted text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX webhooks_org_idx ON webhooks (org_id, created_at)`);
    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        type text NOT NULL,
        payload jsonb NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        leased_until timestamptz,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_deliveries_event_uq UNIQUE (webhook_id, event_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE webhook_attempts (
        id uuid PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        type text NOT NULL,
        attempt integer NOT NULL,
        status_code integer,
        error text,
        next_attempt_at timestamptz,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_attempts_attempt_uq UNIQUE (delivery_id, attempt)
      )`);
    await queryRunner.query(
      `CREATE INDEX webhook_attempts_webhook_idx ON webhook_attempts (webhook_id, created_at)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_attempts`);
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhooks`);
  }
}
