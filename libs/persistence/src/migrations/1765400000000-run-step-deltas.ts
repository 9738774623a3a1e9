import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How each step streamed its text (delta lengths, and the text itself when it differs from the step's), so a
 * run that finds its Redis log lost rebuilds from PostgreSQL exactly the lines it had published.
 */
export class RunStepDeltas1765400000000 implements MigrationInterface {
  name = 'RunStepDeltas1765400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE run_steps ADD COLUMN delta_lengths integer[], ADD COLUMN streamed_text text`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE run_steps DROP COLUMN delta_lengths, DROP COLUMN streamed_text`);
  }
}
