import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Idempotency-Key of each write an organization sent, with the answer it got: a retried POST /chat (or
 * follow-up) gets the same answer and stores nothing twice, even after Redis lost everything.
 */
export class IdempotencyKeys1765500000000 implements MigrationInterface {
  name = 'IdempotencyKeys1765500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        key varchar(255) NOT NULL,
        fingerprint char(64) NOT NULL,
        status_code integer,
        response_body json,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org_id, key)
      )`);
    // Expired keys are purged by age.
    await queryRunner.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE idempotency_keys`);
  }
}
