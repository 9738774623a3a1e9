import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Routines (CONTRACTS §13): a thread started on a schedule for one end user. PostgreSQL is the source of truth
 * (the BullMQ job schedulers are re-registered from it); a firing is made idempotent by the thread's id, derived
 * from the routine and the slot, not by a column here.
 */
export class Routines1765700000000 implements MigrationInterface {
  name = 'Routines1765700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE routines (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        key_id uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        user_id text NOT NULL,
        name text NOT NULL,
        agent_id uuid NOT NULL,
        schedule text NOT NULL,
        timezone text NOT NULL,
        message jsonb NOT NULL,
        options jsonb NOT NULL,
        active boolean NOT NULL,
        inactive_reason text,
        next_run_at timestamptz,
        last_run_at timestamptz,
        last_thread_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX routines_owner_idx ON routines (org_id, user_id, created_at)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE routines`);
  }
}
