import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The spending turn of a budgeted end user (CONTRACTS §21: budgets cannot be raced): the one reply of theirs that
 * may be in a model step now. A run takes it before each model step and reads the budget after taking it; storing
 * the step gives it back, and a holder no longer running (ended, or waiting for a person) holds it no more. So the
 * user's model steps run one at a time, each decided on everything the steps before it spent.
 *
 * parley_take_user_budget_turn(reply, thread): true when `reply` holds the turn of its thread's end user now, or
 * when that user has no budget. It locks the budget row first and only then asks whether the holder still runs,
 * in a statement of its own: that snapshot is taken after the lock, so it sees the holder as it is (a single
 * UPDATE would judge the holder by the snapshot its statement started with, older than the lock it waited for).
 */
export class UserBudgetTurns1766701100000 implements MigrationInterface {
  name = 'UserBudgetTurns1766701100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE user_budgets ADD COLUMN turn_message_id uuid`);
    // Every stored step gives back its reply's turn: this finds the (few) held ones.
    await queryRunner.query(
      `CREATE INDEX user_budgets_turn_idx ON user_budgets (turn_message_id) WHERE turn_message_id IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE FUNCTION parley_take_user_budget_turn(reply uuid, thread uuid) RETURNS boolean LANGUAGE plpgsql AS $$
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
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION parley_take_user_budget_turn(uuid, uuid)`);
    await queryRunner.query(`DROP INDEX user_budgets_turn_idx`);
    await queryRunner.query(`ALTER TABLE user_budgets DROP COLUMN turn_message_id`);
  }
}
