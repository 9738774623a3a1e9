import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ApprovalDecision, Question, WebhookEvent } from '@app/contracts';
import { recordWebhookEvent } from './webhook.repository';
import { preparedStatement, runPreparedAsTenant } from './prepared-statement';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';

/** A tool call that waits, or waited, for a person's decision (CONTRACTS §19). */
export interface ToolApproval {
  messageId: string;
  step: number;
  callId: string;
  name: string;
  arguments: Record<string, unknown>;
  /** null while it waits. */
  decision: ApprovalDecision | null;
  reason: string | null;
  expiresAt: Date;
}

/** A call of a stored step that must wait: where it is in the step (its order), what it calls. */
interface ApprovalRequest {
  callId: string;
  callIndex: number;
  name: string;
  arguments: Record<string, unknown>;
}

/** What a waiting reply's row holds while no run has it: the content and events so far, the question asked. */
export interface WaitingReply {
  content: string;
  events: Record<string, unknown>[];
  deltaLengths: number[];
  questions: Question[];
}

/**
 * How a decision went: `not_waiting` (no such undecided call of a waiting reply), else the calls still waiting
 * (none: the reply runs again) and whether the call's deadline had passed (`expired`: the decision was not taken,
 * the call was denied as timed out).
 */
type DecisionResult = 'not_waiting' | { stillWaiting: ToolApproval[]; expired: boolean };

interface ApprovalRow {
  message_id: string;
  step: number;
  call_id: string;
  name: string;
  arguments: Record<string, unknown>;
  decision: ApprovalDecision | null;
  reason: string | null;
  expires_at: Date;
}

const toApproval = (row: ApprovalRow): ToolApproval => ({
  messageId: row.message_id,
  step: row.step,
  callId: row.call_id,
  name: row.name,
  arguments: row.arguments,
  decision: row.decision,
  reason: row.reason,
  expiresAt: new Date(row.expires_at),
});

/**
 * The approvals of reply $1 of organization $2, in the order of their steps and calls: what a protocol's stream
 * asks at each approval request it relays.
 */
const APPROVALS_OF_VISIBLE_REPLY = preparedStatement({
  name: 'tool_approvals_of_reply',
  text: `SELECT a.message_id, a.step, a.call_id, a.name, a.arguments, a.decision, a.reason, a.expires_at
         FROM tool_approvals a JOIN messages m ON m.id = a.message_id
         WHERE a.message_id = $1 AND m.org_id = $2 ORDER BY a.step, a.call_index`,
});

/** The reason a call's wait that timed out is denied with. */
const APPROVAL_TIMED_OUT = 'No decision within the approval time-out.';

/**
 * The waits for approval of tool calls. They live in PostgreSQL only: no run, job or Redis key holds one, so a
 * reply may wait for hours and across restarts, and any worker resumes it once every call of its step is decided.
 */
@Injectable()
export class ToolApprovalRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Whether the reply still waits for a person (live, `requires_action`) on a call whose time is up: its run, when
   * it resumes, denies that call. Read by the database's clock, as the time-out was set.
   */
  // crosses tenants: the approval-deadline job checks a reply by id, whichever organization's
  async timedOut(messageId: string): Promise<boolean> {
    const [row]: { timed_out: boolean }[] = await this.db.query(
      `SELECT EXISTS (SELECT 1 FROM messages m JOIN tool_approvals a ON a.message_id = m.id
         WHERE m.id = $1 AND m.live AND m.status = 'requires_action' AND a.decision IS NULL
           AND a.expires_at <= now()) AS timed_out`,
      [messageId],
    );
    return row.timed_out;
  }

  /**
   * A reply's approvals as the scope's organization sees them (none of another's), in the order of their steps
   * and calls: for the gateway's streams, under the wall in the statement's own round trip.
   */
  async ofVisibleReply(scope: Pick<Scope, 'orgId'>, messageId: string): Promise<ToolApproval[]> {
    const rows = await runPreparedAsTenant<ApprovalRow>(this.db, scope, APPROVALS_OF_VISIBLE_REPLY, [
      messageId,
      scope.orgId,
    ]);
    return rows.map(toApproval);
  }

  /** A reply's approvals, in the order of their steps and calls. */
  // crosses tenants: the worker's run reads its reply's approvals by id, whichever organization's it holds
  async ofReply(messageId: string): Promise<ToolApproval[]> {
    const rows: ApprovalRow[] = await this.db.query(
      `SELECT message_id, step, call_id, name, arguments, decision, reason, expires_at FROM tool_approvals
       WHERE message_id = $1 ORDER BY step, call_index`,
      [messageId],
    );
    return rows.map(toApproval);
  }

  /** Stores the calls of a step that wait (once: a resumed run asking again changes nothing). */
  // crosses tenants: the worker's run stores its step's waits by reply id
  async request(
    messageId: string,
    step: number,
    calls: readonly ApprovalRequest[],
    timeoutSeconds: number,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO tool_approvals (message_id, step, call_id, call_index, name, arguments, expires_at)
       SELECT $1, $2, c.call_id, c.call_index, c.name, c.arguments, now() + make_interval(secs => $6)
       FROM unnest($3::text[], $4::int[], $5::text[], $7::jsonb[]) AS c (call_id, call_index, name, arguments)
       ON CONFLICT (message_id, step, call_id) DO NOTHING`,
      [
        messageId,
        step,
        calls.map((call) => call.callId),
        calls.map((call) => call.callIndex),
        calls.map((call) => call.name),
        timeoutSeconds,
        calls.map((call) => JSON.stringify(call.arguments)),
      ],
    );
  }

  /** Denies the calls of a step whose time is up; answers whether any was. */
  // crosses tenants: the worker's run denies its step's expired calls by reply id
  async expire(messageId: string, step: number): Promise<boolean> {
    const [, count]: [unknown, number] = await this.db.query(
      `UPDATE tool_approvals SET decision = 'deny', reason = $3, decided_at = now()
       WHERE message_id = $1 AND step = $2 AND decision IS NULL AND expires_at <= now()`,
      [messageId, step, APPROVAL_TIMED_OUT],
    );
    return count > 0;
  }

  /**
   * Leaves a running reply waiting (`requires_action`, still live) with what it holds so far, and reports it to
   * the organization's webhooks (`event`) in the same transaction; false when the reply is no longer running.
   */
  // crosses tenants: the worker's run parks its reply by id and reports to the reply's organization
  async awaitDecisions(messageId: string, waiting: WaitingReply, event: WebhookEvent): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [rows]: [{ org_id: string }[], number] = await tx.query(
        `UPDATE messages SET status = 'requires_action', content = $2, events = $3, delta_lengths = $4,
           questions = $5, updated_at = now()
         WHERE id = $1 AND live AND status IN ('running', 'requires_action') RETURNING org_id`,
        [
          messageId,
          waiting.content,
          JSON.stringify(waiting.events),
          waiting.deltaLengths,
          JSON.stringify(waiting.questions),
        ],
      );
      if (rows.length === 0) return false;
      await recordWebhookEvent(tx, rows[0].org_id, event);
      return true;
    });
  }

  /**
   * Records a decision on a waiting call of a waiting reply (`tx` holds the thread's lock). When it was the
   * step's last undecided call, the reply goes back to `running`: its run is to be enqueued again; else its
   * questions become `questionsOf` the calls still waiting. A call whose deadline has passed (CONTRACTS §21) is
   * denied as timed out whatever the decision says, judged by the statement that records it (at its own start, not
   * the transaction's, which may have waited for the thread's lock), so no timing lets a late approval through; every call of the reply past its deadline is denied with it, as the run would.
   */
  async decide(
    tx: Db,
    scope: Scope,
    messageId: string,
    callId: string,
    decision: ApprovalDecision,
    reason: string | null,
    questionsOf: (waiting: ToolApproval[]) => Question[],
  ): Promise<DecisionResult> {
    // The locked thread's transaction is the scope's tenant transaction already: joined, nothing more is sent.
    return withTenant(tx, scope, async (scoped) => {
      const [decided]: [{ call_id: string; expired: boolean }[], number] = await scoped.query(
        `UPDATE tool_approvals a SET
           decision = CASE WHEN a.expires_at <= statement_timestamp() THEN 'deny' ELSE $3 END,
           reason = CASE WHEN a.expires_at <= statement_timestamp() THEN $5 ELSE $4 END,
           decided_at = statement_timestamp()
         FROM messages m
         WHERE a.message_id = $1 AND (a.call_id = $2 OR a.expires_at <= statement_timestamp()) AND a.decision IS NULL
           AND m.id = a.message_id AND m.org_id = $6 AND m.live AND m.status = 'requires_action'
         RETURNING a.call_id, a.expires_at <= statement_timestamp() AS expired`,
        [messageId, callId, decision, reason, APPROVAL_TIMED_OUT, scope.orgId],
      );
      const target = decided.find((row) => row.call_id === callId);
      if (!target) return 'not_waiting';
      const rows: ApprovalRow[] = await scoped.query(
        `SELECT message_id, step, call_id, name, arguments, decision, reason, expires_at FROM tool_approvals
         WHERE message_id = $1 AND decision IS NULL ORDER BY step, call_index`,
        [messageId],
      );
      const stillWaiting = rows.map(toApproval);
      await scoped.query(
        `UPDATE messages SET status = $2, questions = $3, updated_at = now() WHERE id = $1`,
        stillWaiting.length === 0
          ? [messageId, 'running', null]
          : [messageId, 'requires_action', JSON.stringify(questionsOf(stillWaiting))],
      );
      return { stillWaiting, expired: target.expired };
    });
  }
}
