import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The run start without a default organization cap (issue 29): the functions of 1765800000000 replaced by the
 * text of record of the time (sql/run-scheduling.sql.ts), where a cap of 0 means none and takes no lock. The text
 * is copied here, not imported: a migration is what ran, and a later edit of the rule is a migration of its own.
 */
export class WorkConservingStart1766100000000 implements MigrationInterface {
  name = 'WorkConservingStart1766100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE OR REPLACE FUNCTION parley_reply_blocked(reply uuid, thread_archived boolean, org_cap integer)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT NOT thread_archived AND (EXISTS (SELECT 1 FROM messages e WHERE e.thread_id = r.thread_id AND e.live AND e.position < r.position) OR (org_cap > 0 AND r.status = 'pending' AND (SELECT count(*) FROM messages m WHERE m.org_id = r.org_id AND m.live AND m.status = 'running') >= org_cap))
  FROM messages r WHERE r.id = reply
$$`);
    await queryRunner.query(`CREATE OR REPLACE FUNCTION parley_start_run(reply uuid, org uuid, thread_archived boolean, org_cap integer)
RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  blocked boolean;
BEGIN
  IF org_cap > 0 THEN
    PERFORM pg_advisory_xact_lock(hashtext('agent-run-org'), hashtext(org::text));
  END IF;
  blocked := parley_reply_blocked(reply, thread_archived, org_cap);
  IF blocked IS FALSE THEN
    UPDATE messages SET status = 'running', updated_at = now() WHERE id = reply AND live;
  END IF;
  RETURN COALESCE(blocked, false);
END
$$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // The previous text: every start took the organization's lock and a cap was always set.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION parley_reply_blocked(reply uuid, thread_archived boolean, org_cap integer)
      RETURNS boolean LANGUAGE sql STABLE AS $$
        SELECT NOT thread_archived AND (
          EXISTS (SELECT 1 FROM messages e
                  WHERE e.thread_id = r.thread_id AND e.live AND e.position < r.position)
          OR r.status = 'pending'
             AND (SELECT count(*) FROM messages m WHERE m.org_id = r.org_id AND m.live AND m.status = 'running')
                 >= org_cap)
        FROM messages r WHERE r.id = reply
      $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION parley_start_run(reply uuid, org uuid, thread_archived boolean, org_cap integer)
      RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        blocked boolean;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('agent-run-org'), hashtext(org::text));
        blocked := parley_reply_blocked(reply, thread_archived, org_cap);
        IF blocked IS FALSE THEN
          UPDATE messages SET status = 'running', updated_at = now() WHERE id = reply AND live;
        END IF;
        RETURN COALESCE(blocked, false);
      END
      $$`);
  }
}
