import { Injectable } from '@nestjs/common';
import { replyEndedEventType, toMessageResponse, webhookEvent } from '@app/contracts';
import {
  AgentEntity,
  AgentRepository,
  FinishedReply,
  MessageEntity,
  ReplyOutcome,
  RunRepository,
  RunStepEntity,
} from '@app/persistence';
import { RunEventWriter } from '@app/run-events';
import { RunMetrics } from './run-metrics';
import { RunState } from './run-state';
import { LoopOutcome } from './run/run.types';

/** How a run ends: what the loop decided, or `failed` when the run itself broke on its last attempt. */
export type RunEnding = LoopOutcome | { kind: 'failed' };

export const BUDGET_EXHAUSTED_TEXT = 'The token budget is spent: no reply could be written.';
export const RUN_FAILED_TEXT = 'The run failed and could not be completed.';

/** How long the last step may wait for its lines to reach Redis before it is stored on its own. */
const LAST_STEP_CHECKPOINT_AFTER_MS = 100;

/**
 * Ends a reply: the final row first (content = every delta streamed, events, status, usage), then the
 * `message.completed` line carrying that row, so a client that sees the last line can read the same message.
 */
@Injectable()
export class ReplyFinisher {
  constructor(
    private readonly runs: RunRepository,
    private readonly agents: AgentRepository,
    private readonly writer: RunEventWriter,
    private readonly metrics: RunMetrics,
  ) {}

  /** Null when someone else ended the reply first; else the replies its end lets run (RunRepository.finish). */
  async finish(
    reply: MessageEntity,
    agent: AgentEntity,
    state: RunState,
    ending: RunEnding,
  ): Promise<FinishedReply | null> {
    const closing = closingText(ending);
    // A resumed run may find the closing text already streamed by the run it replaces.
    if (closing && !state.content.endsWith(closing)) {
      state.emitText(state.content ? `\n\n${closing}` : closing);
    }
    const success = ending.kind === 'success' ? ending : null;
    // The final row must not be ahead of the stream: a reply that is no longer live is never streamed again.
    const unstoredStep = await this.flushStoringStepIfSlow(reply, agent, state, success?.finalStep ?? null);
    const outcome: ReplyOutcome = {
      status: success ? 'success' : ending.kind === 'cancelled' ? 'cancelled' : 'error',
      content: state.content,
      errorCode: ending.kind === 'budget_exhausted' ? 'budget_exhausted' : null,
      questions: success?.questions ?? null,
      structuredOutput: success?.structuredOutput ?? null,
      events: state.events,
      deltaLengths: state.deltaLengths,
    };
    const row: MessageEntity = { ...reply, ...outcome, live: false };
    const line = messageLine(row, agent);
    const finished = await this.runs.finish(
      reply.id,
      outcome,
      webhookEvent(replyEndedEventType(outcome.status), line),
      unstoredStep,
    );
    if (!finished) return null;
    state.emitOnce({ type: 'message.completed', message: line });
    await state.flush();
    this.metrics.runs.inc({
      outcome: ending.kind === 'model_error' || ending.kind === 'failed' ? 'error' : ending.kind,
    });
    return finished;
  }

  /**
   * Waits until every line is in the stream. The reply's last step, not stored yet, normally goes with the final
   * row (returned: the finish stores it); but when Redis is slow or failing, it is stored at once on its own, as
   * every other step is while its lines are written, so a run that cannot finish (Redis lost, the worker killed)
   * is resumed from it instead of asking the model again (returns null then).
   */
  private async flushStoringStepIfSlow(
    reply: MessageEntity,
    agent: AgentEntity,
    state: RunState,
    lastStep: RunStepEntity | null,
  ): Promise<RunStepEntity | null> {
    if (!lastStep) {
      await state.flush();
      return null;
    }
    const flushed = state.flush().then(
      () => null,
      (error: unknown) => ({ error }),
    );
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<'slow'>((resolve) => {
      timer = setTimeout(() => resolve('slow'), LAST_STEP_CHECKPOINT_AFTER_MS);
    });
    const first = await Promise.race([flushed, slow]);
    clearTimeout(timer);
    if (first === null) return lastStep;
    await this.runs.saveStep(lastStep, { threadId: reply.threadId, agentId: agent.id, replyTokens: 0 });
    const failure = await flushed;
    if (failure) throw failure.error;
    return null;
  }

  /**
   * A reply that ended without its run writing the last line (cancelled while pending, or a worker that died
   * between the final row and the line): writes `message.started` if missing and `message.completed`.
   */
  async closeEnded(reply: MessageEntity): Promise<void> {
    const written = await this.writer.written(reply.id);
    if (written.some((event) => event.type === 'message.completed')) return;
    // Ran and finished long ago, its stream expired: PostgreSQL holds it and replays fall back to it.
    if (written.length === 0 && reply.events !== null) return;
    const agent = reply.agentId ? await this.agents.findById(reply.agentId) : null;
    const claimed = await this.writer.claim(reply.id);
    const state = new RunState(claimed.log, claimed.written);
    state.emitOnce({ type: 'message.started', message_id: reply.id, thread_id: reply.threadId });
    state.emitOnce({ type: 'message.completed', message: messageLine(reply, agent) });
    await state.flush();
  }
}

function closingText(ending: RunEnding): string | null {
  switch (ending.kind) {
    case 'budget_exhausted':
      return BUDGET_EXHAUSTED_TEXT;
    case 'model_error':
      return `The model failed: ${ending.reason}`;
    case 'failed':
      return RUN_FAILED_TEXT;
    default:
      return null;
  }
}

function messageLine(row: MessageEntity, agent: AgentEntity | null): Record<string, unknown> {
  return { ...toMessageResponse(row, agent) };
}
