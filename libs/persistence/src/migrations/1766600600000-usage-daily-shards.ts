import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `usage_daily` rows are split by a shard of the reply (8 per organization, day, end user, agent and model): every
 * reply's end adds to its row in the statement that ends it, and one row taken by all the replies of a busy end user
 * (or of every reply without one) made each end wait for the one before it to commit. Readers sum the shards.
 */
export class UsageDailyShards1766600600000 implements MigrationInterface {
  name = 'UsageDailyShards1766600600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE usage_daily ADD COLUMN shard smallint NOT NULL DEFAULT 0`);
    await queryRunner.query(`DROP INDEX usage_daily_key`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX usage_daily_key ON usage_daily (org_id, day, user_id, agent_id, model, shard)
        NULLS NOT DISTINCT`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX usage_daily_key`);
    await queryRunner.query(`
      INSERT INTO usage_daily (org_id, day, user_id, agent_id, model, replies, input_tokens, output_tokens,
        tool_calls, shard)
      SELECT org_id, day, user_id, agent_id, model, sum(replies), sum(input_tokens), sum(output_tokens),
        sum(tool_calls), -1
      FROM usage_daily GROUP BY org_id, day, user_id, agent_id, model`);
    await queryRunner.query(`DELETE FROM usage_daily WHERE shard <> -1`);
    await queryRunner.query(`ALTER TABLE usage_daily DROP COLUMN shard`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX usage_daily_key ON usage_daily (org_id, day, user_id, agent_id, model) NULLS NOT DISTINCT`);
  }
}
