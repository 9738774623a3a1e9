import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Model calls that hold (CONTRACTS §24, issue 50): an agent's `fallback_models` and `guardrails`; the model that
 * answered each step (a fallback model may answer in place of the agent's) and the input tokens its vendor read
 * from its prompt cache. The reply-ending trigger (UsageOnEveryEnding) now records the model of the reply's last
 * answered step, and sums cached input tokens into the reply's row and its usage_daily row, so GET /usage prices
 * them apart.
 */
export class ModelCalls1766730000000 implements MigrationInterface {
  name = 'ModelCalls1766730000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE agents ADD COLUMN fallback_models jsonb NOT NULL DEFAULT '[]', ADD COLUMN guardrails jsonb`);
    await queryRunner.query(`
      ALTER TABLE run_steps ADD COLUMN model text, ADD COLUMN cached_input_tokens integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`ALTER TABLE messages ADD COLUMN cached_input_tokens integer NOT NULL DEFAULT 0`);
    await queryRunner.query(
      `ALTER TABLE usage_daily ADD COLUMN cached_input_tokens bigint NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(countEndedReply(true));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(countEndedReply(false));
    await queryRunner.query(`ALTER TABLE usage_daily DROP COLUMN cached_input_tokens`);
    await queryRunner.query(`ALTER TABLE messages DROP COLUMN cached_input_tokens`);
    await queryRunner.query(`ALTER TABLE run_steps DROP COLUMN model, DROP COLUMN cached_input_tokens`);
    await queryRunner.query(`ALTER TABLE agents DROP COLUMN fallback_models, DROP COLUMN guardrails`);
  }
}

/** parley_count_ended_reply with (`cached`) or without the cached tokens and the answering model. */
export function countEndedReply(cached: boolean): string {
  const cachedSum = cached ? 's.cached' : '0';
  return `
      CREATE OR REPLACE FUNCTION parley_count_ended_reply() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        spent record;
      BEGIN
        SELECT COALESCE(sum(s.tokens), 0)::int AS tokens, COALESCE(sum(s.written), 0)::int AS written,
            COALESCE(sum(s.calls), 0)::int AS calls, COALESCE(sum(${cachedSum}), 0)::int AS cached
          INTO spent
          FROM (SELECT usage_tokens AS tokens, output_tokens AS written, jsonb_array_length(tool_calls) AS calls,
                  ${cached ? 'cached_input_tokens' : '0'} AS cached
                  FROM run_steps WHERE message_id = NEW.id
                UNION ALL
                SELECT input_tokens + output_tokens, output_tokens, 0, 0 FROM thread_summaries
                  WHERE message_id = NEW.id) s;
        NEW.usage_tokens := spent.tokens;
        NEW.input_tokens := spent.tokens - spent.written;
        NEW.output_tokens := spent.written;
        NEW.tool_calls := spent.calls;
        ${
          cached
            ? `NEW.cached_input_tokens := spent.cached;
        -- The model that answered the reply's last step: a fallback model when the agent's failed (§24).
        NEW.model := COALESCE(
          (SELECT s.model FROM run_steps s WHERE s.message_id = NEW.id ORDER BY s.step DESC LIMIT 1),
          (SELECT a.model FROM agents a WHERE a.id = NEW.agent_id));`
            : `NEW.model := (SELECT a.model FROM agents a WHERE a.id = NEW.agent_id);`
        }
        NEW.completed_at := COALESCE(NEW.completed_at, now());
        IF spent.tokens > 0 AND NEW.agent_id IS NOT NULL THEN
          INSERT INTO token_usage_pending (message_id, agent_id, org_id, tokens)
            VALUES (NEW.id, NEW.agent_id, NEW.org_id, spent.tokens);
        END IF;
        INSERT INTO usage_daily AS d (org_id, day, user_id, agent_id, model, shard, replies, input_tokens,
            output_tokens, tool_calls${cached ? ', cached_input_tokens' : ''})
          VALUES (NEW.org_id, (NEW.completed_at AT TIME ZONE 'UTC')::date,
            (SELECT t.user_id FROM threads t WHERE t.id = NEW.thread_id), NEW.agent_id, NEW.model,
            abs(hashtext(NEW.id::text)) % 8, 1, NEW.input_tokens, NEW.output_tokens, NEW.tool_calls${
              cached ? ', spent.cached' : ''
            })
          ON CONFLICT (org_id, day, user_id, agent_id, model, shard) DO UPDATE SET replies = d.replies + 1,
            input_tokens = d.input_tokens + EXCLUDED.input_tokens,
            output_tokens = d.output_tokens + EXCLUDED.output_tokens, tool_calls = d.tool_calls + EXCLUDED.tool_calls${
              cached
                ? `,\n            cached_input_tokens = d.cached_input_tokens + EXCLUDED.cached_input_tokens`
                : ''
            };
        RETURN NEW;
      END $$`;
}
