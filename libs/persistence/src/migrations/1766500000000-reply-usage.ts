import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each reply spent (CONTRACTS §20): a step keeps its output tokens beside its total (input = total - output),
 * an ended reply its input and output tokens, tool calls and model; and `usage_daily`, one row per organization,
 * UTC day, end user, agent and model, added to by the statement that ends a reply, so GET /usage and a user's
 * budget read a few rows a day instead of every reply.
 */
export class ReplyUsage1766500000000 implements MigrationInterface {
  name = 'ReplyUsage1766500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE run_steps ADD COLUMN output_tokens integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`
      ALTER TABLE messages
        ADD COLUMN input_tokens integer NOT NULL DEFAULT 0,
        ADD COLUMN output_tokens integer NOT NULL DEFAULT 0,
        ADD COLUMN tool_calls integer NOT NULL DEFAULT 0,
        ADD COLUMN model text`);
    await queryRunner.query(`
      CREATE TABLE usage_daily (
        org_id uuid NOT NULL,
        day date NOT NULL,
        user_id text,
        agent_id uuid,
        model text,
        replies bigint NOT NULL,
        input_tokens bigint NOT NULL,
        output_tokens bigint NOT NULL,
        tool_calls bigint NOT NULL
      )`);
    // A reply without an end user (a routine's), agent or model still has one row to add to.
    await queryRunner.query(`
      CREATE UNIQUE INDEX usage_daily_key ON usage_daily (org_id, day, user_id, agent_id, model) NULLS NOT DISTINCT`);
    await queryRunner.query(`CREATE INDEX usage_daily_user_idx ON usage_daily (org_id, user_id, day)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE usage_daily`);
    await queryRunner.query(`
      ALTER TABLE messages DROP COLUMN input_tokens, DROP COLUMN output_tokens, DROP COLUMN tool_calls,
        DROP COLUMN model`);
    await queryRunner.query(`ALTER TABLE run_steps DROP COLUMN output_tokens`);
  }
}
