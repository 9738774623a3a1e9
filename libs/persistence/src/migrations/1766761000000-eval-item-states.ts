import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An eval run's item says where it is (CONTRACTS §23): `waiting` to be started, `answering` while its reply runs,
 * `judging` while a worker scores it, `scored`. Scoring moved out of the run's row-lock transaction: a worker
 * claims an ended item into `judging` in one statement (`judge_claim` names that claim, `judge_claimed_at` dates
 * it), asks the judge with no lock held, and stores the score only while the item is still `judging` by that
 * claim. A claim whose worker died is taken back once it is older than the judge could take, so the item is
 * judged again exactly once. Existing items get the state their columns already imply.
 */
export class EvalItemStates1766761000000 implements MigrationInterface {
  name = 'EvalItemStates1766761000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE eval_run_items
        ADD COLUMN state text NOT NULL DEFAULT 'waiting'
          CHECK (state IN ('waiting', 'answering', 'judging', 'scored')),
        ADD COLUMN judge_claim uuid,
        ADD COLUMN judge_claimed_at timestamptz`);
    await queryRunner.query(`
      UPDATE eval_run_items SET state = CASE
        WHEN passed IS NOT NULL THEN 'scored'
        WHEN reply_id IS NOT NULL THEN 'answering'
        ELSE 'waiting' END`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE eval_run_items DROP COLUMN state, DROP COLUMN judge_claim, DROP COLUMN judge_claimed_at`,
    );
  }
}
