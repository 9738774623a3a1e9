import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The spending turn of a budgeted end user becomes a rule of when a reply runs (issue 51; sql/run-scheduling.sql.ts,
 * rule 3). A run that finds the turn held no longer asks again every 200 ms holding its worker slot: it parks its
 * reply (pending, marked budget_turn_parked_at, with what it streamed so far) and ends; the parked reply may not
 * start while another reply holds the turn; whatever gives the turn back hands it to the user's oldest parked reply
 * and answers it, to be woken. A parked reply handed the turn holds it until it runs. The texts are the text of
 * record of the time, copied here, not imported: a later edit of the rule is a migration of its own.
 */
export class BudgetTurnParking1766760000000 implements MigrationInterface {
  name = 'BudgetTurnParking1766760000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE messages ADD COLUMN budget_turn_parked_at timestamptz`);
    // The parked replies of a user, oldest first: the few a give-back looks through.
    await queryRunner.query(
      `CREATE INDEX messages_budget_turn_parked_idx ON messages (org_id, budget_turn_parked_at)
       WHERE live AND budget_turn_parked_at IS NOT NULL`,
    );
    await queryRunner.query(`CREATE OR REPLACE FUNCTION parley_reply_blocked(reply uuid, thread_archived boolean, org_cap integer)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT NOT thread_archived AND (EXISTS (SELECT 1 FROM messages e WHERE e.thread_id = r.thread_id AND e.live AND e.position < r.position) OR (org_cap > 0 AND r.status = 'pending' AND (SELECT count(*) FROM messages m WHERE m.org_id = r.org_id AND m.live AND m.status = 'running') >= org_cap)
    OR (r.budget_turn_parked_at IS NOT NULL AND EXISTS (SELECT 1 FROM threads t
    JOIN user_budgets b ON b.org_id = t.org_id AND b.user_id = t.user_id JOIN messages h ON h.id = b.turn_message_id
    WHERE t.id = r.thread_id AND h.id <> r.id AND (h.live AND (h.status = 'running' OR (h.status = 'pending' AND h.budget_turn_parked_at IS NOT NULL))))))
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
    UPDATE messages SET status = 'running', budget_turn_parked_at = NULL, updated_at = now()
      WHERE id = reply AND live;
  END IF;
  RETURN COALESCE(blocked, false);
END
$$`);
    await queryRunner.query(`CREATE OR REPLACE FUNCTION parley_take_user_budget_turn(reply uuid, thread uuid) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  budget record;
BEGIN
  SELECT b.org_id, b.user_id, b.turn_message_id INTO budget
    FROM threads t JOIN user_budgets b ON b.org_id = t.org_id AND b.user_id = t.user_id
    WHERE t.id = thread FOR UPDATE OF b;
  IF NOT FOUND THEN
    RETURN true;
  END IF;
  IF budget.turn_message_id IS DISTINCT FROM reply AND EXISTS (
      SELECT 1 FROM messages m WHERE m.id = budget.turn_message_id AND (m.live AND (m.status = 'running' OR (m.status = 'pending' AND m.budget_turn_parked_at IS NOT NULL)))) THEN
    RETURN false;
  END IF;
  UPDATE user_budgets SET turn_message_id = reply
    WHERE org_id = budget.org_id AND user_id = budget.user_id;
  RETURN true;
END
$$`);
    await queryRunner.query(`CREATE FUNCTION parley_park_for_user_budget_turn(reply uuid, thread uuid, streamed_content text,
    streamed_events jsonb, streamed_delta_lengths integer[]) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF parley_take_user_budget_turn(reply, thread) THEN
    RETURN 'taken';
  END IF;
  UPDATE messages SET status = 'pending', budget_turn_parked_at = now(), content = streamed_content,
      events = streamed_events, delta_lengths = streamed_delta_lengths, updated_at = now()
    WHERE id = reply AND live AND status = 'running';
  RETURN CASE WHEN FOUND THEN 'parked' ELSE 'ended' END;
END
$$`);
    await queryRunner.query(`CREATE FUNCTION parley_give_back_user_budget_turn(reply uuid)
RETURNS TABLE (next_reply_id uuid, next_thread_id uuid) LANGUAGE plpgsql AS $$
DECLARE
  budget record;
BEGIN
  UPDATE user_budgets SET turn_message_id = NULL WHERE turn_message_id = reply RETURNING org_id, user_id INTO budget;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT parked.id, parked.thread_id INTO next_reply_id, next_thread_id
    FROM (SELECT m.id, m.thread_id
  FROM messages m JOIN threads t ON t.id = m.thread_id
  WHERE m.org_id = budget.org_id AND t.user_id = budget.user_id AND m.live AND m.status = 'pending'
    AND m.budget_turn_parked_at IS NOT NULL
  ORDER BY m.budget_turn_parked_at, m.id LIMIT 1) parked;
  IF FOUND THEN
    UPDATE user_budgets SET turn_message_id = next_reply_id
      WHERE org_id = budget.org_id AND user_id = budget.user_id;
    RETURN NEXT;
  END IF;
END
$$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // The texts of 1766100000000 and 1766701100000: a run asked for the turn again until it had it.
    await queryRunner.query(`DROP FUNCTION parley_give_back_user_budget_turn(uuid)`);
    await queryRunner.query(
      `DROP FUNCTION parley_park_for_user_budget_turn(uuid, uuid, text, jsonb, integer[])`,
    );
    await queryRunner.query(`CREATE OR REPLACE FUNCTION parley_take_user_budget_turn(reply uuid, thread uuid) RETURNS boolean LANGUAGE plpgsql AS $$
      DECLARE
        budget record;
      BEGIN
        SELECT b.org_id, b.user_id, b.turn_message_id INTO budget
          FROM threads t JOIN user_budgets b ON b.org_id = t.org_id AND b.user_id = t.user_id
          WHERE t.id = thread FOR UPDATE OF b;
        IF NOT FOUND THEN
          RETURN true;
        END IF;
        IF budget.turn_message_id IS DISTINCT FROM reply AND EXISTS (
            SELECT 1 FROM messages m WHERE m.id = budget.turn_message_id AND m.live AND m.status = 'running') THEN
          RETURN false;
        END IF;
        UPDATE user_budgets SET turn_message_id = reply
          WHERE org_id = budget.org_id AND user_id = budget.user_id;
        RETURN true;
      END $$`);
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
    await queryRunner.query(`CREATE OR REPLACE FUNCTION parley_reply_blocked(reply uuid, thread_archived boolean, org_cap integer)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT NOT thread_archived AND (EXISTS (SELECT 1 FROM messages e WHERE e.thread_id = r.thread_id AND e.live AND e.position < r.position) OR (org_cap > 0 AND r.status = 'pending' AND (SELECT count(*) FROM messages m WHERE m.org_id = r.org_id AND m.live AND m.status = 'running') >= org_cap))
  FROM messages r WHERE r.id = reply
$$`);
    await queryRunner.query(`DROP INDEX messages_budget_turn_parked_idx`);
    await queryRunner.query(`ALTER TABLE messages DROP COLUMN budget_turn_parked_at`);
  }
}
