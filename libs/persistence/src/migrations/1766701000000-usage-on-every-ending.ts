import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A reply's usage is counted by the database whenever the reply stops being live (CONTRACTS §21: usage counts on
 * every ending). Until now the run's final statement counted it and every other ending (a cancel of a pending or
 * waiting reply, an archive, an interrupt, a stop, an erasure's or retention's cancel) did not: a reply cancelled
 * while it waited for an approval lost the tokens of its first steps. A trigger on the one change every ending
 * makes (`live` true → false, which happens once per reply) leaves no statement that could end a reply and skip
 * it: it writes the row's usage columns from the reply's stored steps and thread summary, adds the tokens for the
 * agent's and organization's counters (token_usage_pending, folded in later) and the reply to its day's usage row
 * (usage_daily). A BEFORE trigger, so the row is written once with its usage (no second update of the row).
 *
 * Every reply that ends counts as one reply in usage_daily, as the statement that ended runs counted them: its
 * rows stay the sums of the ended replies.
 */
export class UsageOnEveryEnding1766701000000 implements MigrationInterface {
  name = 'UsageOnEveryEnding1766701000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION parley_count_ended_reply() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        spent record;
      BEGIN
        -- The trigger's queries take a fresh snapshot: a step stored by the ending statement itself is seen when
        -- that statement stores it before it updates the row (RunRepository's FINISH_REPLY makes sure it does).
        SELECT COALESCE(sum(s.tokens), 0)::int AS tokens, COALESCE(sum(s.written), 0)::int AS written,
            COALESCE(sum(s.calls), 0)::int AS calls
          INTO spent
          FROM (SELECT usage_tokens AS tokens, output_tokens AS written, jsonb_array_length(tool_calls) AS calls
                  FROM run_steps WHERE message_id = NEW.id
                UNION ALL
                SELECT input_tokens + output_tokens, output_tokens, 0 FROM thread_summaries
                  WHERE message_id = NEW.id) s;
        NEW.usage_tokens := spent.tokens;
        NEW.input_tokens := spent.tokens - spent.written;
        NEW.output_tokens := spent.written;
        NEW.tool_calls := spent.calls;
        NEW.model := (SELECT a.model FROM agents a WHERE a.id = NEW.agent_id);
        NEW.completed_at := COALESCE(NEW.completed_at, now());
        IF spent.tokens > 0 AND NEW.agent_id IS NOT NULL THEN
          INSERT INTO token_usage_pending (message_id, agent_id, org_id, tokens)
            VALUES (NEW.id, NEW.agent_id, NEW.org_id, spent.tokens);
        END IF;
        -- One of 8 shards picked by the reply's id, so the ends of one end user's many replies do not queue on
        -- one row's lock.
        INSERT INTO usage_daily AS d (org_id, day, user_id, agent_id, model, shard, replies, input_tokens,
            output_tokens, tool_calls)
          VALUES (NEW.org_id, (NEW.completed_at AT TIME ZONE 'UTC')::date,
            (SELECT t.user_id FROM threads t WHERE t.id = NEW.thread_id), NEW.agent_id, NEW.model,
            abs(hashtext(NEW.id::text)) % 8, 1, NEW.input_tokens, NEW.output_tokens, NEW.tool_calls)
          ON CONFLICT (org_id, day, user_id, agent_id, model, shard) DO UPDATE SET replies = d.replies + 1,
            input_tokens = d.input_tokens + EXCLUDED.input_tokens,
            output_tokens = d.output_tokens + EXCLUDED.output_tokens, tool_calls = d.tool_calls + EXCLUDED.tool_calls;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER messages_count_ended_reply BEFORE UPDATE OF live ON messages
        FOR EACH ROW WHEN (OLD.live AND NOT NEW.live) EXECUTE FUNCTION parley_count_ended_reply()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER messages_count_ended_reply ON messages`);
    await queryRunner.query(`DROP FUNCTION parley_count_ended_reply()`);
  }
}
