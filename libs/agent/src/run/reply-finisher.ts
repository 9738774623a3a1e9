import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import {
  endedReplyEvent,
  endedReplyMessage,
  Question,
  toMessageResponse,
  webhookEvent,
} from '@app/contracts';
import {
  AgentEntity,
  AgentRepository,
  FinishedReply,
  MessageEntity,
  ReplyOutcome,
  RunRepository,
  ToolApprovalRepository,
} from '@app/persistence';
import { RunEventWriter, storedReplyLines, UnnumberedRunEvent } from '@app/run-events';
import { RunMetrics } from './run-metrics';
import { RunState } from './run-state';
import { LoopOutcome } from './run.types';
import { GUARDRAIL_BLOCKED_TEXT } from '../guardrails/guardrails';

/** How a run ends: what the loop decided, or `failed` when the run itself broke on its last attempt. */
export type RunEnding = Exclude<LoopOutcome, { kind: 'awaiting_approval' }> | { kind: 'failed' };

export const BUDGET_EXHAUSTED_TEXT = 'The token budget is spent: no reply could be written.';
const RUN_FAILED_TEXT = 'The run failed and could not be completed.';

/**
 * Ends a reply: the final row first (content = every delta emitted, events, status, usage; the last step with
 * it), then its lines go out, closed by the `message.completed` line carrying that row: store, then publish, so
 * a client that sees the last line can read the same message, and a crash in between leaves a row whose lines
 * the next attempt publishes (closeEnded).
 */
@Injectable()
export class ReplyFinisher {
  constructor(
    private readonly settings: Settings,
    private readonly runs: RunRepository,
    private readonly agents: AgentRepository,
    private readonly writer: RunEventWriter,
    private readonly metrics: RunMetrics,
    private readonly approvals: ToolApprovalRepository,
  ) {}

  /**
   * Leaves the reply waiting for a person (CONTRACTS §19): its row takes `requires_action` with the questions,
   * the content and events so far, and the webhook event, in one transaction; then the `approval.requested`
   * lines go out (held until now, so no one decides before the reply waits). The run then ends: nothing but the
   * rows holds the wait.
   */
  async awaitApproval(
    reply: MessageEntity,
    agent: AgentEntity,
    state: RunState,
    questions: Question[],
  ): Promise<void> {
    await state.assertOwner();
    const waiting = {
      content: state.content,
      events: state.events,
      deltaLengths: state.deltaLengths,
      questions,
    };
    const row: MessageEntity = { ...reply, ...waiting, status: 'requires_action', live: true };
    const message = { ...toMessageResponse(row, agent) };
    const event = webhookEvent('message.requires_action', message);
    if (!(await this.approvals.awaitDecisions(reply.id, waiting, event))) return;
    state.stored();
    await state.flush();
  }

  /** Null when someone else ended the reply first; else the replies its end lets run (RunRepository.finish). */
  async finish(
    reply: MessageEntity,
    agent: AgentEntity,
    state: RunState,
    ending: RunEnding,
    /** Runs right before the final statement: the run's stream journal lets go of its log (see StreamJournal). */
    beforeFinalStatement: () => Promise<void> = () => Promise.resolve(),
  ): Promise<FinishedReply | null> {
    const closing = closingText(ending);
    // A resumed run may find the closing text already streamed by the run it replaces.
    if (closing && !state.content.endsWith(closing)) {
      state.emitText(state.content ? `\n\n${closing}` : closing);
    }
    const success = ending.kind === 'success' ? ending : null;
    // A run that lost its log to another worker must not end the reply with what it alone holds.
    await state.assertOwner();
    const outcome: ReplyOutcome = {
      status: success ? 'success' : ending.kind === 'cancelled' ? 'cancelled' : 'error',
      content: state.content,
      errorCode:
        ending.kind === 'budget_exhausted' || ending.kind === 'guardrail_blocked' ? ending.kind : null,
      questions: success?.questions ?? null,
      structuredOutput: success?.structuredOutput ?? null,
      events: state.events,
      deltaLengths: state.deltaLengths,
    };
    const row: MessageEntity = { ...reply, ...outcome, live: false };
    const line = endedReplyMessage(row, agent);
    await beforeFinalStatement();
    const finished = await this.runs.finish(
      reply.id,
      outcome,
      endedReplyEvent(outcome.status, line),
      success?.finalStep ?? (ending.kind === 'guardrail_blocked' ? ending.finalStep : null),
      this.settings.agentRunOrgConcurrency,
    );
    if (!finished) return null;
    state.emitOnce({ type: 'message.completed', message: line });
    state.stored();
    await state.flush();
    this.metrics.runs.inc({
      outcome: ending.kind === 'model_error' || ending.kind === 'failed' ? 'error' : ending.kind,
    });
    return finished;
  }

  /**
   * A reply that ended without its run publishing every line (cancelled while pending, or a worker that stopped
   * between the final row and its lines): the lines its row holds past what the log has, with their seqs, and
   * `message.completed`.
   */
  async closeEnded(reply: MessageEntity): Promise<void> {
    const written = await this.writer.written(reply.id);
    if (written.some((event) => event.type === 'message.completed')) return;
    // Ran and finished long ago, its stream expired: PostgreSQL holds it and replays fall back to it.
    if (written.length === 0 && reply.events !== null) return;
    const agent = reply.agentId ? await this.agents.findById(reply.agentId) : null;
    const claimed = await this.writer.claim(reply.id, () => this.runs.isStored(reply.id));
    const state = new RunState(claimed.log, claimed.written);
    state.restore(
      storedReplyLines(reply, endedReplyMessage(reply, agent)).map(
        ({ seq: _seq, ...line }) => line as UnnumberedRunEvent,
      ),
    );
    state.stored();
    await state.flush();
  }
}

function closingText(ending: RunEnding): string | null {
  switch (ending.kind) {
    case 'budget_exhausted':
      return BUDGET_EXHAUSTED_TEXT;
    case 'guardrail_blocked':
      return GUARDRAIL_BLOCKED_TEXT;
    case 'model_error':
      return `The model failed: ${ending.reason}`;
    case 'failed':
      return RUN_FAILED_TEXT;
    default:
      return null;
  }
}
