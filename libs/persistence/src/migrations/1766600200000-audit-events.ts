import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (CONTRACTS §20): one row per recorded change, written in the change's own transaction. Append-only
 * in the database itself: a trigger refuses UPDATE, DELETE and TRUNCATE, so no route, job or hand-written statement
 * can rewrite history. `org_id` is null for a deployment-wide change (the MCP catalogue), which every organization
 * lists. No foreign keys: an entry outlives what it names.
 */
export class AuditEvents1766600200000 implements MigrationInterface {
  name = 'AuditEvents1766600200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE audit_events (
        id uuid PRIMARY KEY,
        org_id uuid,
        at timestamptz NOT NULL DEFAULT now(),
        actor_type text NOT NULL CHECK (actor_type IN ('key', 'admin')),
        actor_id text NOT NULL,
        action text NOT NULL,
        target_type text NOT NULL,
        target_id text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}'
      )`);
    await queryRunner.query(`CREATE INDEX audit_events_listing_idx ON audit_events (org_id, id DESC)`);
    await queryRunner.query(`
      CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`);
    await queryRunner.query(`
      CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
      FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE audit_events`);
    await queryRunner.query(`DROP FUNCTION audit_events_append_only()`);
  }
}
