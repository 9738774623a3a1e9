import { RUN_SCHEDULING_FUNCTIONS } from './run-scheduling.sql';

/**
 * The text of record of every function the schema holds (as Immich's schema/functions.ts): what PostgreSQL must
 * hold after the last migration, checked by test/integration/persistence/database-functions.int-spec.ts. A change
 * is written here and copied into a new migration: a migration is a frozen snapshot and never imports this text.
 */

/**
 * The one upsert of a `usage_daily` row: adds counts to the row of an organization, day, end user, agent, model and
 * shard. Its callers: parley_count_usage (a spending as it is counted) and the erasure of an end user, which folds
 * their rows into the rows of their hash (those tokens were counted for the agent already, so only usage_daily
 * moves). Counts are bigint, as the table's columns, so a folded row adds what it holds.
 */
export const ADD_USAGE_DAILY_FUNCTION = `CREATE OR REPLACE FUNCTION parley_add_usage_daily(add_org uuid, add_day date, add_user text,
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
END $$`;

/**
 * Tokens spent counted where GET /usage, the end users' budgets and the agents' and organizations' counters read
 * them: a reply's as it ends (parley_count_ended_reply), a rubric judge's per call; its usage_daily upsert is
 * parley_add_usage_daily's.
 */
export const COUNT_USAGE_FUNCTION = `CREATE OR REPLACE FUNCTION parley_count_usage(spend_id uuid, spend_org uuid, spend_day date, spend_user text,
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
END $$`;

/** A reply's usage counted as it stops being live, whichever statement ends it. */
export const COUNT_ENDED_REPLY_FUNCTION = `CREATE OR REPLACE FUNCTION parley_count_ended_reply() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$`;

/** The thread and end users a webhook delivery names, for erasure by column. */
export const WEBHOOK_DELIVERY_SUBJECTS_FUNCTION = `CREATE OR REPLACE FUNCTION parley_webhook_delivery_subjects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.thread_id := NEW.payload #>> '{data,thread_id}';
  NEW.end_user_ids := array_remove(ARRAY[
    NEW.payload #>> '{data,user_id}',
    NEW.payload #>> '{data,created_by}',
    NEW.payload #>> '{data,connection,created_by}'], NULL);
  RETURN NEW;
END
$$`;

/** Refuses every change to audit_events but an insert. */
export const AUDIT_EVENTS_APPEND_ONLY_FUNCTION = `CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$`;

/** Every function of the schema, by the name PostgreSQL knows it by. */
export const DATABASE_FUNCTIONS: readonly { name: string; definition: string }[] = [
  ...RUN_SCHEDULING_FUNCTIONS,
  { name: 'parley_add_usage_daily', definition: ADD_USAGE_DAILY_FUNCTION },
  { name: 'parley_count_usage', definition: COUNT_USAGE_FUNCTION },
  { name: 'parley_count_ended_reply', definition: COUNT_ENDED_REPLY_FUNCTION },
  { name: 'parley_webhook_delivery_subjects', definition: WEBHOOK_DELIVERY_SUBJECTS_FUNCTION },
  { name: 'audit_events_append_only', definition: AUDIT_EVENTS_APPEND_ONLY_FUNCTION },
];
