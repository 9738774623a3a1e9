import { approvalQuestion } from '@app/contracts';
import { RunEvent } from '@app/run-events';
import { WaitingCall } from '../reply-waits';

/*
 * A2A v1.0 objects in their JSON form (ProtoJSON: enum names, `oneof` fields by name), as @a2a-js/sdk reads them.
 */

export type A2aTaskState =
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED';

export type A2aPart = { text: string } | { data: unknown };

export interface A2aMessage {
  messageId: string;
  contextId: string;
  taskId: string;
  role: 'ROLE_AGENT';
  parts: A2aPart[];
}

export interface A2aTaskStatus {
  state: A2aTaskState;
  message?: A2aMessage;
}

export interface A2aArtifact {
  artifactId: string;
  name: string;
  parts: A2aPart[];
}

export interface A2aTask {
  id: string;
  contextId: string;
  status: A2aTaskStatus;
  artifacts: A2aArtifact[];
  history: A2aMessage[];
}

/** One item of a streamed answer: the `result` of each SSE event's JSON-RPC response. */
export type A2aStreamResponse =
  | { task: A2aTask }
  | { statusUpdate: { taskId: string; contextId: string; status: A2aTaskStatus } }
  | {
      artifactUpdate: {
        taskId: string;
        contextId: string;
        artifact: A2aArtifact;
        append: boolean;
        lastChunk: boolean;
      };
    };

/** The reply's text: the task's one artifact. */
export const REPLY_ARTIFACT_ID = 'reply';

/** A stored reply status as a task state (CONTRACTS §22); a reply that ended asking questions waits for input. */
export function a2aStateOf(status: string, asksQuestions = false): A2aTaskState {
  switch (status) {
    case 'pending':
      return 'TASK_STATE_SUBMITTED';
    case 'running':
      return 'TASK_STATE_WORKING';
    case 'requires_action':
      return 'TASK_STATE_INPUT_REQUIRED';
    case 'success':
      return asksQuestions ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_COMPLETED';
    case 'cancelled':
      return 'TASK_STATE_CANCELED';
    default:
      return 'TASK_STATE_FAILED';
  }
}

/** A reply's final Message, as `message.completed` carries it. */
interface FinalMessage {
  status?: string;
  content?: string;
  error_code?: string | null;
  questions?: { prompt: string; options: string[] }[] | null;
}

/**
 * A reply's run events (CONTRACTS §5) as an A2A task: the updates each line becomes, and the task they add up
 * to. Deterministic, so a resubscription that replays the lines from the first gives the same updates, and the
 * task of a finished reply is what its stream ended with. The reply's text is streamed as chunks of one
 * artifact; tool calls, their results and approvals ride as `data` parts of `working` status updates (also kept
 * in the task's history).
 */
export class A2aTaskTranslation {
  private status: A2aTaskStatus = { state: 'TASK_STATE_SUBMITTED' };
  private text = '';
  private readonly history: A2aMessage[] = [];

  constructor(private readonly ids: { taskId: string; contextId: string }) {}

  next(line: RunEvent): A2aStreamResponse[] {
    switch (line.type) {
      case 'message.started':
        return [{ task: this.task() }, this.statusUpdate({ state: 'TASK_STATE_WORKING' })];
      case 'text.delta': {
        const append = this.text.length > 0;
        this.text += line.delta;
        return [this.artifactUpdate([{ text: line.delta }], append)];
      }
      case 'tool.call':
        return [this.activity(line.seq, { tool_call: pick(line, ['step', 'call_id', 'name', 'arguments']) })];
      case 'tool.result':
        return [
          this.activity(line.seq, {
            tool_result: pick(line, ['step', 'call_id', 'name', 'output', 'is_error']),
          }),
        ];
      case 'approval.requested':
        return [
          this.activity(line.seq, { approval_request: pick(line, ['step', 'call_id', 'name', 'arguments']) }),
        ];
      case 'approval.decided':
        return [this.activity(line.seq, { approval_decision: pick(line, ['step', 'call_id', 'decision']) })];
      case 'questions':
        return [this.activity(line.seq, { questions: line.questions })];
      // CONTRACTS §24: another model answered a step, or a guardrail acted; data parts as the tool activity.
      case 'model.fallback':
        return [this.activity(line.seq, { model_fallback: pick(line, ['step', 'from', 'to', 'reason']) })];
      case 'guardrail.triggered':
        return [this.activity(line.seq, { guardrail: pick(line, ['stage', 'kind', 'action']) })];
      case 'message.completed':
        return this.completed(line.seq, line.message as FinalMessage);
      default:
        // Lines A2A has no update for (a compaction note) say nothing to the other agent.
        return [];
    }
  }

  /** The reply now waits for a person's answer to these calls (CONTRACTS §19): `input-required`. */
  waiting(calls: WaitingCall[]): A2aStreamResponse[] {
    const parts: A2aPart[] = [
      { text: calls.map((call) => approvalQuestion(call).prompt).join('\n') },
      { data: { approval_requests: calls } },
    ];
    return [
      this.statusUpdate({ state: 'TASK_STATE_INPUT_REQUIRED', message: this.agentMessage('input', parts) }),
    ];
  }

  /** The task as the lines so far made it. */
  task(): A2aTask {
    return {
      id: this.ids.taskId,
      contextId: this.ids.contextId,
      status: this.status,
      artifacts: this.text
        ? [{ artifactId: REPLY_ARTIFACT_ID, name: 'reply', parts: [{ text: this.text }] }]
        : [],
      history: [...this.history],
    };
  }

  private completed(seq: number, message: FinalMessage): A2aStreamResponse[] {
    const questions = message.questions ?? [];
    const state = a2aStateOf(message.status ?? 'error', questions.length > 0);
    const updates: A2aStreamResponse[] = [];
    const content = message.content ?? '';
    if (state === 'TASK_STATE_FAILED') {
      const why = content || message.error_code || 'The reply failed';
      return [this.statusUpdate({ state, message: this.agentMessage(`${seq}`, [{ text: why }]) })];
    }
    // Deltas join to the content (CONTRACTS §5); a reply that never streamed (cancelled early) has what it has.
    if (content.length > this.text.length && content.startsWith(this.text)) {
      updates.push(this.artifactUpdate([{ text: content.slice(this.text.length) }], this.text.length > 0));
      this.text = content;
    }
    const parts: A2aPart[] = questions.length
      ? [{ text: questions.map((question) => question.prompt).join('\n') }, { data: { questions } }]
      : [];
    updates.push(
      this.statusUpdate(parts.length ? { state, message: this.agentMessage(`${seq}`, parts) } : { state }),
    );
    return updates;
  }

  private activity(seq: number, data: unknown): A2aStreamResponse {
    const message = this.agentMessage(`${seq}`, [{ data }]);
    this.history.push(message);
    return this.statusUpdate({ state: 'TASK_STATE_WORKING', message });
  }

  private agentMessage(suffix: string, parts: A2aPart[]): A2aMessage {
    const { taskId, contextId } = this.ids;
    return { messageId: `${taskId}:${suffix}`, contextId, taskId, role: 'ROLE_AGENT', parts };
  }

  private statusUpdate(status: A2aTaskStatus): A2aStreamResponse {
    this.status = status;
    return { statusUpdate: { taskId: this.ids.taskId, contextId: this.ids.contextId, status } };
  }

  private artifactUpdate(parts: A2aPart[], append: boolean): A2aStreamResponse {
    const { taskId, contextId } = this.ids;
    const artifact = { artifactId: REPLY_ARTIFACT_ID, name: 'reply', parts };
    return { artifactUpdate: { taskId, contextId, artifact, append, lastChunk: false } };
  }
}

function pick<T extends object, K extends keyof T>(value: T, keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}
