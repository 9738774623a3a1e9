/**
 * The text of record of the rule that decides when a reply runs (README, "How a reply runs"). Each condition is
 * written once, here, and used by the database functions (their text as of the baseline migration
 * 1766800000000, which keeps its own copy, as every migration does; checked against what PostgreSQL holds by
 * test/integration/persistence/database-functions.int-spec.ts) and by RunRepository's statements. A change here
 * needs a migration that copies the new text.
 *
 * The rule:
 * 1. Per-thread order: a reply waits while an earlier reply of its thread is live (pending or running).
 * 2. An optional cap: when AGENT_RUN_ORG_CONCURRENCY > 0, a pending reply also waits while its organization runs
 *    that many replies. Off by default: fair share between organizations is the queue's order (AgentRunQueue's
 *    priority by the organization's live replies), which lets an organization alone use every worker slot.
 * 3. The spending turn of a budgeted end user (CONTRACTS §21): the user's model calls run one at a time. A run
 *    that finds the turn held parks its reply (back to pending, marked budget_turn_parked_at, what it streamed so
 *    far in its row, as a reply waiting for a person keeps it) and ends, freeing its slot; the parked reply waits
 *    while another reply holds the turn. Whatever gives the turn back hands it to the user's oldest parked reply
 *    and answers it, to be woken at once.
 * An archived thread's replies never wait: they only close.
 */

/** A live reply of `reply`'s thread (an alias of `messages`) that comes before it. */
export const earlierLiveReplyOf = (reply: string): string =>
  `EXISTS (SELECT 1 FROM messages e WHERE e.thread_id = ${reply}.thread_id AND e.live AND e.position < ${reply}.position)`;

/** The number of replies of `orgId`'s organization running now. */
const runningRepliesOf = (orgId: string): string =>
  `(SELECT count(*) FROM messages m WHERE m.org_id = ${orgId} AND m.live AND m.status = 'running')`;

/**
 * Whether reply `reply` (an alias of `messages`) waits for its organization's cap `cap` (0: no cap). A reply
 * already running (resumed after a crash) is never held back by it.
 */
const heldByOrgCap = (reply: string, cap: string): string =>
  `(${cap} > 0 AND ${reply}.status = 'pending' AND ${runningRepliesOf(`${reply}.org_id`)} >= ${cap})`;

/**
 * Whether message `holder` (an alias of `messages`) still holds the spending turn its end user's budget row names:
 * it runs (a model call under way, or about to be), or it is parked and was handed the turn (woken, not started
 * yet). A holder that ended, or waits for a person, holds it no more.
 */
const holdsUserBudgetTurn = (holder: string): string =>
  `(${holder}.live AND (${holder}.status = 'running' OR (${holder}.status = 'pending' AND ${holder}.budget_turn_parked_at IS NOT NULL)))`;

/** Whether reply `reply` (an alias of `messages`), parked for its end user's spending turn, waits: another holds it. */
const heldByUserBudgetTurn = (reply: string): string =>
  `(${reply}.budget_turn_parked_at IS NOT NULL AND EXISTS (SELECT 1 FROM threads t
    JOIN user_budgets b ON b.org_id = t.org_id AND b.user_id = t.user_id JOIN messages h ON h.id = b.turn_message_id
    WHERE t.id = ${reply}.thread_id AND h.id <> ${reply}.id AND ${holdsUserBudgetTurn('h')}))`;

/** The oldest parked reply of the end user `userId` of organization `orgId`: the one the turn goes to next. */
const nextParkedReplyOfUserSql = (orgId: string, userId: string): string => `SELECT m.id, m.thread_id
  FROM messages m JOIN threads t ON t.id = m.thread_id
  WHERE m.org_id = ${orgId} AND t.user_id = ${userId} AND m.live AND m.status = 'pending'
    AND m.budget_turn_parked_at IS NOT NULL
  ORDER BY m.budget_turn_parked_at, m.id LIMIT 1`;

/**
 * The first live reply of thread `threadId`, but `except` (a reply its own statement ends): the one that runs next.
 */
export const nextLiveReplySql = (threadId: string, except?: string): string =>
  `SELECT id FROM messages WHERE thread_id = ${threadId} AND live AND role = 'assistant'` +
  `${except ? ` AND id <> ${except}` : ''} ORDER BY position LIMIT 1`;

/**
 * The organization's (`orgId`) oldest pending reply that is first in its thread: the one a slot freed under the
 * cap goes to. Only asked while a cap is set.
 */
export const nextWaitingReplyOfOrgSql = (orgId: string): string => `SELECT m.id, m.thread_id FROM messages m
  WHERE m.org_id = ${orgId} AND m.live AND m.status = 'pending' AND m.role = 'assistant'
    AND NOT ${earlierLiveReplyOf('m')}
  ORDER BY m.created_at, m.id LIMIT 1`;

/**
 * Whether a pending reply would wait now (RunRepository.isBlocked, and the start's own decision). PL/pgSQL, not
 * SQL, for its plan: PostgreSQL (before 18) plans a SQL function's body afresh in every transaction that calls it
 * (about 0.9 ms a run start, bench/results/paced.md), where PL/pgSQL keeps the plan for the session.
 */
export const REPLY_BLOCKED_FUNCTION = `CREATE OR REPLACE FUNCTION parley_reply_blocked(reply uuid, thread_archived boolean, org_cap integer)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT NOT thread_archived AND (${earlierLiveReplyOf('r')} OR ${heldByOrgCap('r', 'org_cap')}
    OR ${heldByUserBudgetTurn('r')})
  FROM messages r WHERE r.id = reply);
END
$$`;

/**
 * A reply's run start in one call: pending → running unless it waits (a parked reply is parked no more). Only a
 * cap needs the organization's starts to take turns (an advisory lock, so two workers cannot both take its last
 * slot); without one, a start decides from its own thread alone and starts of one organization run side by side.
 * In a VOLATILE function each statement takes its own snapshot, so what the rule counts is read after the lock is
 * held. The same update fixes the agent version of a reply that pinned none to `run_version`, the one its run
 * uses (CONTRACTS §23): a reply's version is set at its first start and never changed by a later one (a run
 * resumed after its agent changed keeps it). NULL (an agent without versions, or a caller older than the
 * parameter) leaves it as it is.
 */
export const START_RUN_FUNCTION = `CREATE OR REPLACE FUNCTION parley_start_run(reply uuid, org uuid, thread_archived boolean, org_cap integer,
    run_version integer DEFAULT NULL)
RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  blocked boolean;
BEGIN
  IF org_cap > 0 THEN
    PERFORM pg_advisory_xact_lock(hashtext('agent-run-org'), hashtext(org::text));
  END IF;
  blocked := parley_reply_blocked(reply, thread_archived, org_cap);
  IF blocked IS FALSE THEN
    UPDATE messages SET status = 'running', budget_turn_parked_at = NULL, updated_at = now(),
        agent_version = COALESCE(agent_version, run_version)
      WHERE id = reply AND live;
  END IF;
  RETURN COALESCE(blocked, false);
END
$$`;

/**
 * The end user's spending turn for a reply's next model call: true when `reply` holds it now (taken, or handed to
 * it), or when the thread's user has no budget. It locks the budget row first and only then asks whether the
 * holder still holds it, in a statement of its own: that snapshot is taken after the lock, so it sees the holder
 * as it is (a single UPDATE would judge the holder by the snapshot its statement started with).
 */
export const TAKE_USER_BUDGET_TURN_FUNCTION = `CREATE OR REPLACE FUNCTION parley_take_user_budget_turn(reply uuid, thread uuid) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  budget record;
BEGIN
  SELECT b.org_id, b.user_id, b.turn_message_id INTO budget
    FROM threads t JOIN user_budgets b ON b.org_id = t.org_id AND b.user_id = t.user_id
    WHERE t.id = thread FOR UPDATE OF b;
  IF NOT FOUND THEN
    RETURN true;
  END IF;
  IF budget.turn_message_id IS DISTINCT FROM reply AND EXISTS (
      SELECT 1 FROM messages m WHERE m.id = budget.turn_message_id AND ${holdsUserBudgetTurn('m')}) THEN
    RETURN false;
  END IF;
  UPDATE user_budgets SET turn_message_id = reply
    WHERE org_id = budget.org_id AND user_id = budget.user_id;
  RETURN true;
END
$$`;

/**
 * Takes the turn, or else parks the running reply under the budget row's lock (so no give-back slips between
 * the two): pending with the parked mark and what it streamed so far, which the gateway's cancel, archive,
 * erasure and retention close like any pending reply. Answers 'taken', 'parked', or 'ended' when the reply no
 * longer runs (another ended it).
 */
export const PARK_FOR_USER_BUDGET_TURN_FUNCTION = `CREATE OR REPLACE FUNCTION parley_park_for_user_budget_turn(reply uuid, thread uuid, streamed_content text,
    streamed_events jsonb, streamed_delta_lengths integer[]) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF parley_take_user_budget_turn(reply, thread) THEN
    RETURN 'taken';
  END IF;
  UPDATE messages SET status = 'pending', budget_turn_parked_at = now(), content = streamed_content,
      events = streamed_events, delta_lengths = streamed_delta_lengths, updated_at = now()
    WHERE id = reply AND live AND status = 'running';
  RETURN CASE WHEN FOUND THEN 'parked' ELSE 'ended' END;
END
$$`;

/**
 * Gives back the turn `reply` holds, if any, and hands it to its end user's oldest parked reply, answered to be
 * woken (no row when none). The parked replies are read in a statement of their own, after the budget row's
 * lock: a reply parked under that lock just before is seen.
 */
export const GIVE_BACK_USER_BUDGET_TURN_FUNCTION = `CREATE OR REPLACE FUNCTION parley_give_back_user_budget_turn(reply uuid)
RETURNS TABLE (next_reply_id uuid, next_thread_id uuid) LANGUAGE plpgsql AS $$
DECLARE
  budget record;
BEGIN
  UPDATE user_budgets SET turn_message_id = NULL WHERE turn_message_id = reply RETURNING org_id, user_id INTO budget;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT parked.id, parked.thread_id INTO next_reply_id, next_thread_id
    FROM (${nextParkedReplyOfUserSql('budget.org_id', 'budget.user_id')}) parked;
  IF FOUND THEN
    UPDATE user_budgets SET turn_message_id = next_reply_id
      WHERE org_id = budget.org_id AND user_id = budget.user_id;
    RETURN NEXT;
  END IF;
END
$$`;

/**
 * A statement's CTE (or a statement) giving back `reply`'s turn (parley_give_back_user_budget_turn): its one row,
 * if any, is the parked reply to wake.
 */
export const giveBackUserBudgetTurnSql = (reply: string): string =>
  `SELECT next_reply_id, next_thread_id FROM parley_give_back_user_budget_turn(${reply})`;

/** The functions in creation order, with the name PostgreSQL knows each by. */
export const RUN_SCHEDULING_FUNCTIONS = [
  { name: 'parley_reply_blocked', definition: REPLY_BLOCKED_FUNCTION },
  { name: 'parley_start_run', definition: START_RUN_FUNCTION },
  { name: 'parley_take_user_budget_turn', definition: TAKE_USER_BUDGET_TURN_FUNCTION },
  { name: 'parley_park_for_user_budget_turn', definition: PARK_FOR_USER_BUDGET_TURN_FUNCTION },
  { name: 'parley_give_back_user_budget_turn', definition: GIVE_BACK_USER_BUDGET_TURN_FUNCTION },
] as const;
