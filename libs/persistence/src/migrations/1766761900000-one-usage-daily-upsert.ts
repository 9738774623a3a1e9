import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One upsert of a `usage_daily` row, `parley_add_usage_daily`, where there were two: parley_count_usage's and the
 * erasure's fold of an end user's rows into the rows of their hash (CONTRACTS §21), which wrote the same
 * ON CONFLICT sums again. The fold calls this function and not parley_count_usage: the tokens it moves were
 * counted for the agent (token_usage_pending) when they were spent, and must not be counted there twice.
 *
 * The counts are bigint, as usage_daily's columns, so a folded row adds all it holds; parley_count_usage passes
 * its int counts and the shard it picks, and writes what it wrote before.
 */
export class OneUsageDailyUpsert1766761900000 implements MigrationInterface {
  name = 'OneUsageDailyUpsert1766761900000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION parley_add_usage_daily(add_org uuid, add_day date, add_user text,
          add_agent uuid, add_model text, add_shard int, add_replies bigint, add_input bigint, add_output bigint,
          add_tool_calls bigint, add_cached bigint) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO usage_daily AS d (org_id, day, user_id, agent_id, model, shard, replies, input_tokens,
            output_tokens, tool_calls, cached_input_tokens)
          VALUES (add_org, add_day, add_user, add_agent, add_model, add_shard, add_replies, add_input, add_output,
            add_tool_calls, add_cached)
          ON CONFLICT (org_id, day, user_id, agent_id, model, shard) DO UPDATE SET
            replies = d.replies + EXCLUDED.replies,
            input_tokens = d.input_tokens + EXCLUDED.input_tokens,
            output_tokens = d.output_tokens + EXCLUDED.output_tokens,
            tool_calls = d.tool_calls + EXCLUDED.tool_calls,
            cached_input_tokens = d.cached_input_tokens + EXCLUDED.cached_input_tokens;
      END $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION parley_count_usage(spend_id uuid, spend_org uuid, spend_day date, spend_user text,
          spend_agent uuid, spend_model text, spend_replies int, spend_input int, spend_output int,
          spend_tool_calls int, spend_cached int) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        IF spend_input + spend_output > 0 AND spend_agent IS NOT NULL THEN
          INSERT INTO token_usage_pending (message_id, agent_id, org_id, tokens)
            VALUES (spend_id, spend_agent, spend_org, spend_input + spend_output);
        END IF;
        -- One of 8 shards picked by the spending's id, so the ends of one end user's many replies do not queue on
        -- one row's lock.
        PERFORM parley_add_usage_daily(spend_org, spend_day, spend_user, spend_agent, spend_model,
          abs(hashtext(spend_id::text)) % 8, spend_replies, spend_input, spend_output, spend_tool_calls, spend_cached);
      END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION parley_count_usage(spend_id uuid, spend_org uuid, spend_day date, spend_user text,
          spend_agent uuid, spend_model text, spend_replies int, spend_input int, spend_output int,
          spend_tool_calls int, spend_cached int) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        IF spend_input + spend_output > 0 AND spend_agent IS NOT NULL THEN
          INSERT INTO token_usage_pending (message_id, agent_id, org_id, tokens)
            VALUES (spend_id, spend_agent, spend_org, spend_input + spend_output);
        END IF;
        INSERT INTO usage_daily AS d (org_id, day, user_id, agent_id, model, shard, replies, input_tokens,
            output_tokens, tool_calls, cached_input_tokens)
          VALUES (spend_org, spend_day, spend_user, spend_agent, spend_model, abs(hashtext(spend_id::text)) % 8,
            spend_replies, spend_input, spend_output, spend_tool_calls, spend_cached)
          ON CONFLICT (org_id, day, user_id, agent_id, model, shard) DO UPDATE SET
            replies = d.replies + EXCLUDED.replies,
            input_tokens = d.input_tokens + EXCLUDED.input_tokens,
            output_tokens = d.output_tokens + EXCLUDED.output_tokens,
            tool_calls = d.tool_calls + EXCLUDED.tool_calls,
            cached_input_tokens = d.cached_input_tokens + EXCLUDED.cached_input_tokens;
      END $$`);
    await queryRunner.query(`DROP FUNCTION parley_add_usage_daily`);
  }
}
