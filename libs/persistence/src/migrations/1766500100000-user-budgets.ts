import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A token budget per end user of an organization, for a UTC day or month (CONTRACTS §20): a reply's run reads it
 * at every step's gate against usage_daily and the user's replies still running.
 */
export class UserBudgets1766500100000 implements MigrationInterface {
  name = 'UserBudgets1766500100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE user_budgets (
        org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id text NOT NULL,
        period text NOT NULL CHECK (period IN ('day', 'month')),
        max_tokens bigint NOT NULL CHECK (max_tokens >= 0),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org_id, user_id)
      )`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE user_budgets`);
  }
}
