import { PreparedStatement, preparedStatement } from '../../repositories/prepared-statement';
import { closeReplyRowSql, ClosedRow, EndableReply } from './close-reply-row.sql';
import { dropStreamJournalSql } from './drop-stream-journal.sql';
import { nextLiveReplyAfterSql } from './next-live-reply.sql';
import { nextWaitingReplyOfOrgJoinSql } from './next-waiting-reply-of-org.sql';
import { handUserBudgetTurnOnSql } from './hand-user-budget-turn-on.sql';
import { queueEndWebhooksSql } from './queue-end-webhooks.sql';
import { ReplyEndingInput, ReplyEndingParameter, ReplyEndingPlaceholders } from './reply-ending.parameters';
import { storeLastStepSql } from './store-last-step.sql';

/**
 * How one way of ending a reply differs from the others. Every ending closes the row (its usage counted by the
 * trigger as `live` goes false), drops the reply's stream journal and reports the end to webhooks: those are not
 * options, so no way of ending a reply can skip them. What an ending leaves out, it says here.
 */
export interface ReplyEndingPlan {
  endable: EndableReply;
  row: ClosedRow;
  /** `stored with the end`: the run's last step, when not stored yet, is stored first and counted with the rest. */
  lastStep: 'stored with the end' | 'none';
  /**
   * `found`: the answer names the thread's next live reply, under a cap the organization's next waiting one, and
   * the end user's oldest parked reply when the ended reply held the user's spending turn (handed to it here).
   */
  nextReplies: 'found' | 'not asked';
}

/** A way of ending a reply: its one statement, and the values of its parameters from an input. */
export interface ReplyEnding {
  statement: PreparedStatement;
  /** The parameters its text uses, in their numbering ($1 first). */
  parameters: readonly ReplyEndingParameter[];
  values(input: ReplyEndingInput): unknown[];
}

/**
 * Composes an ending from the fragments of this folder, one effect each, into ONE statement (a CTE) rather than
 * statements pipelined in a transaction: every effect but the last step depends on the row being closed by this
 * very statement (a reply someone else ended gets no second report, its thread no second hand-on), which each
 * effect reads from `closed`; in a transaction of several statements each would check it again, and BEGIN and
 * COMMIT would cost the conversation's hot path round trips of their own. The last step is stored first: the
 * row is closed FROM `stored`, so the usage trigger, which reads with a fresh snapshot, counts it.
 */
export function composeReplyEnding(name: string, plan: ReplyEndingPlan): ReplyEnding {
  const p = new ReplyEndingPlaceholders();
  const effects: string[] = [];
  let after: string | undefined;
  if (plan.lastStep === 'stored with the end') {
    effects.push(`last_step AS (${storeLastStepSql(p)})`, `stored AS (SELECT count(*) FROM last_step)`);
    after = 'stored';
  }
  effects.push(
    `closed AS (${closeReplyRowSql(p, plan.endable, plan.row, after)})`,
    `journal AS (${dropStreamJournalSql('closed')})`,
    `hooks AS (${queueEndWebhooksSql(p, 'closed')})`,
  );
  if (plan.nextReplies === 'found') effects.push(`turn AS (${handUserBudgetTurnOnSql('closed')})`);
  const answer =
    plan.nextReplies === 'found'
      ? `SELECT (${nextLiveReplyAfterSql('closed')}) AS next_reply_id,
     next_of_org.id AS next_org_reply_id, next_of_org.thread_id AS next_org_thread_id,
     (SELECT next_reply_id FROM turn) AS next_parked_reply_id,
     (SELECT next_thread_id FROM turn) AS next_parked_thread_id
   FROM closed ${nextWaitingReplyOfOrgJoinSql(p, 'closed', 'next_of_org')}`
      : `SELECT to_jsonb(closed) AS reply FROM closed`;
  return {
    statement: preparedStatement({ name, text: `WITH ${effects.join(',\n   ')}\n   ${answer}` }),
    parameters: [...p.names()],
    values: (input) => p.values(input),
  };
}

/**
 * A run's end, by its worker: success, failure (a model error, a spent budget, a blocked guardrail, a run that
 * broke), or cancelled (a running reply stopped, its thread archived, erased or retired, a call waiting past its
 * approval deadline denied and the run ended). Every reply that ran ends here or by UNHELD_REPLY_CANCEL. The
 * spending turn the reply held (its last model call's, stored with the end) is given back by the same statement
 * and handed to its end user's oldest parked reply, which the answer names to be started at once.
 */
export const RUN_ENDING = composeReplyEnding('run_finish_reply', {
  endable: 'any live reply',
  row: 'final row written',
  lastStep: 'stored with the end',
  nextReplies: 'found',
});

/**
 * A reply no run holds (pending, or waiting for a person), cancelled in its caller's transaction under the
 * thread's lock: a cancel, an AI SDK stop, an archive, an interrupting follow-up, an erasure's or retention's stop.
 * No last step: no run is in one (a waiting reply's run stored its steps before it began to wait). Next replies
 * not asked: the cancelled reply's own job, enqueued again after the commit to close its stream, hands the thread
 * on, and a reply that was not running frees no slot of its organization.
 */
export const UNHELD_REPLY_CANCEL = composeReplyEnding('reply_cancel_unheld', {
  endable: 'a reply no run holds',
  row: 'kept as it stands',
  lastStep: 'none',
  nextReplies: 'not asked',
});
