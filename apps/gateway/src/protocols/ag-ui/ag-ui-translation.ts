import { APPROVAL_REASON_MAX_CHARS, approvalQuestion } from '@app/contracts';
import { RunEvent } from '@app/run-events';
import { WaitingCall } from '../reply-waits';

/** An AG-UI 1.0 event, as @ag-ui/core defines them: `type` and its fields. */
export type AgUiEvent = { type: string } & Record<string, unknown>;

/** What RUN_STARTED and RUN_FINISHED name: the client's thread id and run id, as the request gave them. */
export interface AgUiRun {
  threadId: string;
  runId: string;
}

/** What a resume entry's payload holds to answer an approval interrupt. */
export const APPROVAL_RESPONSE_SCHEMA = {
  type: 'object',
  required: ['decision'],
  properties: {
    decision: { enum: ['approve', 'deny'] },
    reason: { type: 'string', maxLength: APPROVAL_REASON_MAX_CHARS },
  },
};

/** A reply's final Message, as `message.completed` carries it. */
interface FinalMessage {
  status?: string;
  content?: string;
  error_code?: string | null;
}

/**
 * A reply's run events (CONTRACTS §5) as AG-UI 1.0 events (CONTRACTS §22): steps as STEP_STARTED/STEP_FINISHED,
 * each step's text one assistant message, tool calls with their arguments and results, the end as RUN_FINISHED
 * (`success`, `cancelled`) or RUN_ERROR. Deterministic: a run resumed after a line's seq continues from the
 * state the lines before it left (`reopen`), so the client holds every event once.
 */
export class AgUiTranslation {
  /** The step whose STEP_STARTED went out and whose STEP_FINISHED has not. */
  private step: number | null = null;
  /** The open text message of that step. */
  private textId: string | null = null;

  constructor(
    private readonly replyId: string,
    private readonly run: AgUiRun,
  ) {}

  /** The first events of a run that starts here: RUN_STARTED, then the step and text the lines left open. */
  start(): AgUiEvent[] {
    const events: AgUiEvent[] = [{ type: 'RUN_STARTED', ...this.run }];
    if (this.step !== null) events.push({ type: 'STEP_STARTED', stepName: stepName(this.step) });
    if (this.textId !== null)
      events.push({ type: 'TEXT_MESSAGE_START', messageId: this.textId, role: 'assistant' });
    return events;
  }

  next(line: RunEvent): AgUiEvent[] {
    switch (line.type) {
      case 'step.started':
        return [...this.closeStep(), ...this.openStep(line.step)];
      case 'text.delta': {
        // A delta a guardrail withdrew replays empty (CONTRACTS §24); AG-UI refuses an empty content event, and
        // events are numbered by their line's seq, so leaving it out leaves no gap a resume would see.
        if (line.delta === '') return [];
        const events = this.step === null ? this.openStep(0) : [];
        if (this.textId === null) {
          this.textId = this.messageId();
          events.push({ type: 'TEXT_MESSAGE_START', messageId: this.textId, role: 'assistant' });
        }
        events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: this.textId, delta: line.delta });
        return events;
      }
      case 'tool.call': {
        const events = this.step === null ? this.openStep(line.step) : this.closeText();
        const toolCallId = line.call_id;
        events.push(
          { type: 'TOOL_CALL_START', toolCallId, toolCallName: line.name, parentMessageId: this.messageId() },
          { type: 'TOOL_CALL_ARGS', toolCallId, delta: JSON.stringify(line.arguments) },
          { type: 'TOOL_CALL_END', toolCallId },
        );
        return events;
      }
      case 'tool.result':
        return [
          {
            type: 'TOOL_CALL_RESULT',
            messageId: `${line.call_id}-result`,
            toolCallId: line.call_id,
            content: typeof line.output === 'string' ? line.output : JSON.stringify(line.output),
            role: 'tool',
          },
        ];
      case 'questions':
        return [{ type: 'CUSTOM', name: 'parley.questions', value: { questions: line.questions } }];
      // CONTRACTS §24: another model answered a step, or a guardrail acted; custom events as the questions.
      case 'model.fallback':
        return [
          {
            type: 'CUSTOM',
            name: 'parley.model_fallback',
            value: { step: line.step, from: line.from, to: line.to, reason: line.reason },
          },
        ];
      case 'guardrail.triggered':
        return [
          {
            type: 'CUSTOM',
            name: 'parley.guardrail',
            value: { stage: line.stage, kind: line.kind, action: line.action },
          },
        ];
      case 'message.completed':
        return [...this.closeStep(), this.ending(line.message as FinalMessage)];
      default:
        // Approvals end a run where the reply waits (interrupted); a compaction note says nothing to a front end.
        return [];
    }
  }

  /**
   * The end of a run at a reply that waits for a person (CONTRACTS §19): RUN_FINISHED with one interrupt per
   * waiting call, answered by the next run's `resume`. The lines' state stays as it was: that run reopens it.
   */
  interrupted(calls: WaitingCall[]): AgUiEvent[] {
    const closing: AgUiEvent[] = [];
    if (this.textId !== null) closing.push({ type: 'TEXT_MESSAGE_END', messageId: this.textId });
    if (this.step !== null) closing.push({ type: 'STEP_FINISHED', stepName: stepName(this.step) });
    const interrupts = calls.map((call) => ({
      id: call.call_id,
      reason: 'tool_approval',
      message: approvalQuestion(call).prompt,
      toolCallId: call.call_id,
      responseSchema: APPROVAL_RESPONSE_SCHEMA,
      metadata: { name: call.name, arguments: call.arguments },
    }));
    return [...closing, { type: 'RUN_FINISHED', ...this.run, outcome: { type: 'interrupt', interrupts } }];
  }

  private ending(message: FinalMessage): AgUiEvent {
    if (message.status === 'error') {
      const why = message.content || message.error_code || 'The reply failed';
      return { type: 'RUN_ERROR', message: why, ...(message.error_code ? { code: message.error_code } : {}) };
    }
    const outcome = message.status === 'cancelled' ? 'cancelled' : 'success';
    return { type: 'RUN_FINISHED', ...this.run, outcome: { type: outcome } };
  }

  /** The assistant message of the step: its text, and the parent of its tool calls. */
  private messageId(): string {
    return `${this.replyId}-${this.step ?? 0}`;
  }

  private openStep(step: number): AgUiEvent[] {
    this.step = step;
    return [{ type: 'STEP_STARTED', stepName: stepName(step) }];
  }

  private closeText(): AgUiEvent[] {
    if (this.textId === null) return [];
    const events = [{ type: 'TEXT_MESSAGE_END', messageId: this.textId }];
    this.textId = null;
    return events;
  }

  private closeStep(): AgUiEvent[] {
    if (this.step === null) return [];
    const events = [...this.closeText(), { type: 'STEP_FINISHED', stepName: stepName(this.step) }];
    this.step = null;
    return events;
  }
}

const stepName = (step: number): string => `step ${step}`;
