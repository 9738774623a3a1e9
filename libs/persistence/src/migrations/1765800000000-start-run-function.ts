import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A reply's run start as one call (RunRepository.start): the organization's advisory lock, then the capped
 * start, in one round trip and one implicit transaction instead of four (BEGIN, lock, start, COMMIT). In a
 * VOLATILE function each statement takes its own snapshot, so the count of running replies is read after the
 * lock is held, as it was with separate statements, and the lock is released at the call's commit.
 *
 * parley_reply_blocked is the rule, also asked on its own (RunRepository.isBlocked): a pending reply waits while
 * an earlier reply of its thread is live (never on an archived thread, whose replies only close), or while its
 * organization already runs `org_cap` replies. A reply already running (resumed after a crash) is not held back
 * by the cap.
 */
export class StartRunFunction1765800000000 implements MigrationInterface {
  name = 'StartRunFunction1765800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION parley_reply_blocked(reply uuid, thread_archived boolean, org_cap integer)
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
      CREATE FUNCTION parley_start_run(reply uuid, org uuid, thread_archived boolean, org_cap integer)
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

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION parley_start_run(uuid, uuid, boolean, integer)`);
    await queryRunner.query(`DROP FUNCTION parley_reply_blocked(uuid, boolean, integer)`);
  }
}
