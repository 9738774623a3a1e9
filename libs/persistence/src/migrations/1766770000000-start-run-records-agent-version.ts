import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run's start fixes the agent version of a reply that pinned none (issue 45: one statement fewer per
 * conversation). parley_start_run takes the version the run uses (`run_version`, read by the same statement that
 * calls it) and writes it in the update that marks the reply running, only where none is set, instead of the worker
 * sending an UPDATE of its own after the start. The parameter defaults to NULL (nothing written), so a worker of the
 * previous release, which calls the function with four arguments and fixes the version itself, still runs during a
 * rolling update. The text is the text of record of the time (sql/run-scheduling.sql.ts), copied here, not
 * imported: a later edit of the rule is a migration of its own.
 */
export class StartRunRecordsAgentVersion1766770000000 implements MigrationInterface {
  name = 'StartRunRecordsAgentVersion1766770000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // A fifth parameter makes another function, not a replacement: the four-argument one goes, or a call with four
    // arguments would find two candidates.
    await queryRunner.query(`DROP FUNCTION parley_start_run(uuid, uuid, boolean, integer)`);
    await queryRunner.query(`CREATE FUNCTION parley_start_run(reply uuid, org uuid, thread_archived boolean, org_cap integer,
    run_version integer DEFAULT NULL)
RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  blocked boolean;
BEGIN
  IF org_cap > 0 THEN
    PERFORM pg_advisory_xact_lock(hashtext('agent-run-org'), hashtext(org::text));
  END IF;
  blocked := parley_reply_blocked(reply, thread_archived, org_cap);
  IF blocked IS FALSE THEN
    UPDATE messages SET status = 'running', budget_turn_parked_at = NULL, updated_at = now(),
        agent_version = COALESCE(agent_version, run_version)
      WHERE id = reply AND live;
  END IF;
  RETURN COALESCE(blocked, false);
END
$$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // The text of 1766760000000: the worker fixed the version in a statement of its own.
    await queryRunner.query(`DROP FUNCTION parley_start_run(uuid, uuid, boolean, integer, integer)`);
    await queryRunner.query(`CREATE FUNCTION parley_start_run(reply uuid, org uuid, thread_archived boolean, org_cap integer)
RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  blocked boolean;
BEGIN
  IF org_cap > 0 THEN
    PERFORM pg_advisory_xact_lock(hashtext('agent-run-org'), hashtext(org::text));
  END IF;
  blocked := parley_reply_blocked(reply, thread_archived, org_cap);
  IF blocked IS FALSE THEN
    UPDATE messages SET status = 'running', budget_turn_parked_at = NULL, updated_at = now()
      WHERE id = reply AND live;
  END IF;
  RETURN COALESCE(blocked, false);
END
$$`);
  }
}
