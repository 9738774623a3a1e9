import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * parley_reply_blocked in PL/pgSQL: PostgreSQL (before 18) plans a SQL function's body afresh in every transaction
 * that calls it, once per run start (about 0.9 ms of the database's CPU a conversation, bench/results/paced.md);
 * PL/pgSQL keeps the plan for the session. Same rule, same answers.
 */
export class ReplyBlockedPlanKept1766900000000 implements MigrationInterface {
  name = 'ReplyBlockedPlanKept1766900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE OR REPLACE FUNCTION parley_reply_blocked(reply uuid, thread_archived boolean, org_cap integer)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT NOT thread_archived AND (EXISTS (SELECT 1 FROM messages e WHERE e.thread_id = r.thread_id AND e.live AND e.position < r.position) OR (org_cap > 0 AND r.status = 'pending' AND (SELECT count(*) FROM messages m WHERE m.org_id = r.org_id AND m.live AND m.status = 'running') >= org_cap)
    OR (r.budget_turn_parked_at IS NOT NULL AND EXISTS (SELECT 1 FROM threads t
    JOIN user_budgets b ON b.org_id = t.org_id AND b.user_id = t.user_id JOIN messages h ON h.id = b.turn_message_id
    WHERE t.id = r.thread_id AND h.id <> r.id AND (h.live AND (h.status = 'running' OR (h.status = 'pending' AND h.budget_turn_parked_at IS NOT NULL))))))
  FROM messages r WHERE r.id = reply);
END
$$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE OR REPLACE FUNCTION parley_reply_blocked(reply uuid, thread_archived boolean, org_cap integer)
  RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT NOT thread_archived AND (EXISTS (SELECT 1 FROM messages e WHERE e.thread_id = r.thread_id AND e.live AND e.position < r.position) OR (org_cap > 0 AND r.status = 'pending' AND (SELECT count(*) FROM messages m WHERE m.org_id = r.org_id AND m.live AND m.status = 'running') >= org_cap)
    OR (r.budget_turn_parked_at IS NOT NULL AND EXISTS (SELECT 1 FROM threads t
    JOIN user_budgets b ON b.org_id = t.org_id AND b.user_id = t.user_id JOIN messages h ON h.id = b.turn_message_id
    WHERE t.id = r.thread_id AND h.id <> r.id AND (h.live AND (h.status = 'running' OR (h.status = 'pending' AND h.budget_turn_parked_at IS NOT NULL))))))
  FROM messages r WHERE r.id = reply
$$`);
  }
}
