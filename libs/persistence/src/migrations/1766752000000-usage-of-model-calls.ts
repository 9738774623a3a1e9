import { MigrationInterface, QueryRunner } from 'typeorm';
import { countEndedReply } from './1766730000000-model-calls';

/**
 * Tokens a model spends outside a reply (a rubric's judge, CONTRACTS §23) are counted as a reply's are: the part of
 * the reply-ending trigger that counts (usage_daily for GET /usage and end users' budgets, token_usage_pending for
 * the agents' and organizations' counters) becomes a function of its own, `parley_count_usage`, which the trigger
 * calls for an ended reply and the eval runner for a judge's call. One accounting path, two callers.
 *
 * `spend_id` names the spending (the reply's id, or a fresh id per judge call): it keys token_usage_pending and
 * picks the usage_daily shard. A spending that is not a reply counts 0 replies.
 */
export class UsageOfModelCalls1766752000000 implements MigrationInterface {
  name = 'UsageOfModelCalls1766752000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION parley_count_usage(spend_id uuid, spend_org uuid, spend_day date, spend_user text,
          spend_agent uuid, spend_model text, spend_replies int, spend_input int, spend_output int,
          spend_tool_calls int, spend_cached int) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        IF spend_input + spend_output > 0 AND spend_agent IS NOT NULL THEN
          INSERT INTO token_usage_pending (message_id, agent_id, org_id, tokens)
            VALUES (spend_id, spend_agent, spend_org, spend_input + spend_output);
        END IF;
        -- One of 8 shards picked by the spending's id, so the ends of one end user's many replies do not queue on
        -- one row's lock.
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
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION parley_count_ended_reply() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        spent record;
      BEGIN
        SELECT COALESCE(sum(s.tokens), 0)::int AS tokens, COALESCE(sum(s.written), 0)::int AS written,
            COALESCE(sum(s.calls), 0)::int AS calls, COALESCE(sum(s.cached), 0)::int AS cached
          INTO spent
          FROM (SELECT usage_tokens AS tokens, output_tokens AS written, jsonb_array_length(tool_calls) AS calls,
                  cached_input_tokens AS cached
                  FROM run_steps WHERE message_id = NEW.id
                UNION ALL
                SELECT input_tokens + output_tokens, output_tokens, 0, 0 FROM thread_summaries
                  WHERE message_id = NEW.id) s;
        NEW.usage_tokens := spent.tokens;
        NEW.input_tokens := spent.tokens - spent.written;
        NEW.output_tokens := spent.written;
        NEW.tool_calls := spent.calls;
        NEW.cached_input_tokens := spent.cached;
        -- The model that answered the reply's last step: a fallback model when the agent's failed (§24).
        NEW.model := COALESCE(
          (SELECT s.model FROM run_steps s WHERE s.message_id = NEW.id ORDER BY s.step DESC LIMIT 1),
          (SELECT a.model FROM agents a WHERE a.id = NEW.agent_id));
        NEW.completed_at := COALESCE(NEW.completed_at, now());
        PERFORM parley_count_usage(NEW.id, NEW.org_id, (NEW.completed_at AT TIME ZONE 'UTC')::date,
          (SELECT t.user_id FROM threads t WHERE t.id = NEW.thread_id), NEW.agent_id, NEW.model, 1,
          NEW.input_tokens, NEW.output_tokens, NEW.tool_calls, spent.cached);
        RETURN NEW;
      END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(countEndedReply(true));
    await queryRunner.query(`DROP FUNCTION parley_count_usage`);
  }
}
