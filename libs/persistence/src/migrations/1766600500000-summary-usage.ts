import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What writing a thread summary cost, kept with the summary: the reply whose run wrote it counts it in its own
 * usage when it ends (CONTRACTS §19: budgets count the summary's tokens; §20: usage, end users' budgets).
 * Summaries stored before this were counted against the agent's and organization's budgets when written.
 */
export class SummaryUsage1766600500000 implements MigrationInterface {
  name = 'SummaryUsage1766600500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE thread_summaries ADD COLUMN input_tokens integer NOT NULL DEFAULT 0,
         ADD COLUMN output_tokens integer NOT NULL DEFAULT 0`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE thread_summaries DROP COLUMN input_tokens, DROP COLUMN output_tokens`,
    );
  }
}
