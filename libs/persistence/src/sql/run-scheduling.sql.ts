/**
 * The text of record of the rule that decides when a reply runs (README, "How a reply runs"). Each condition is
 * written once, here, and used by the database functions (their text as of migration 1766100000000, which keeps
 * its own copy; checked against what PostgreSQL holds by test/integration/persistence/database-functions.int-spec.ts)
 * and by RunRepository's statements. A change here needs a migration that copies the new text.
 *
 * The rule:
 * 1. Per-thread order: a reply waits while an earlier reply of its thread is live (pending or running).
 * 2. An optional cap: when AGENT_RUN_ORG_CONCURRENCY > 0, a pending reply also waits while its organization runs
 *    that many replies. Off by default: fair share between organizations is the queue's order (AgentRunQueue's
 *    priority by the organization's live replies), which lets an organization alone use every worker slot.
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

/** Whether a pending reply would wait now (RunRepository.isBlocked, and the start's own decision). */
export const REPLY_BLOCKED_FUNCTION = `CREATE OR REPLACE FUNCTION parley_reply_blocked(reply uuid, thread_archived boolean, org_cap integer)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT NOT thread_archived AND (${earlierLiveReplyOf('r')} OR ${heldByOrgCap('r', 'org_cap')})
  FROM messages r WHERE r.id = reply
$$`;

/**
 * A reply's run start in one call: pending → running unless it waits. Only a cap needs the organization's starts
 * to take turns (an advisory lock, so two workers cannot both take its last slot); without one, a start decides
 * from its own thread alone and starts of one organization run side by side. In a VOLATILE function each
 * statement takes its own snapshot, so what the rule counts is read after the lock is held.
 */
export const START_RUN_FUNCTION = `CREATE OR REPLACE FUNCTION parley_start_run(reply uuid, org uuid, thread_archived boolean, org_cap integer)
RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  blocked boolean;
BEGIN
  IF org_cap > 0 THEN
    PERFORM pg_advisory_xact_lock(hashtext('agent-run-org'), hashtext(org::text));
  END IF;
  blocked := parley_reply_blocked(reply, thread_archived, org_cap);
  IF blocked IS FALSE THEN
    UPDATE messages SET status = 'running', updated_at = now() WHERE id = reply AND live;
  END IF;
  RETURN COALESCE(blocked, false);
END
$$`;

/** The functions in creation order, with the name PostgreSQL knows each by. */
export const RUN_SCHEDULING_FUNCTIONS = [
  { name: 'parley_reply_blocked', definition: REPLY_BLOCKED_FUNCTION },
  { name: 'parley_start_run', definition: START_RUN_FUNCTION },
] as const;
