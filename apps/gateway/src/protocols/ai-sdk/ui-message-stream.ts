import type { UIMessageChunk } from 'ai';
import { RunEvent } from '@app/run-events';

/**
 * The AI SDK's UI message stream, protocol v1 (CONTRACTS §17), from a reply's stream lines (CONTRACTS §5).
 * Pure: the same lines give the same chunks, so a resumed stream, which replays the reply from its start,
 * is byte for byte the stream a first request got.
 */

/** What the translation remembers between lines: the step and the text part that are open, the denied calls. */
export interface UiStreamState {
  /** The step whose `start-step` went out and whose `finish-step` has not; null outside any step. */
  step: number | null;
  /** The id of the step's open text part; null when no text has come in this step. */
  textId: string | null;
  /** The calls a person denied (`approval.decided`): their `tool.result` is the AI SDK's denial. */
  denied: readonly string[];
}

export const UI_STREAM_START: UiStreamState = { step: null, textId: null, denied: [] };

export interface Translated {
  state: UiStreamState;
  chunks: UIMessageChunk[];
}

/** A reply's final Message, as `message.completed` carries it. */
interface FinalMessage {
  status?: string;
  content?: string;
  error_code?: string | null;
}

/** The chunks one stream line becomes, and the state after it. */
export function toUiMessageChunks(state: UiStreamState, event: RunEvent): Translated {
  switch (event.type) {
    case 'message.started':
      return { state, chunks: [{ type: 'start', messageId: event.message_id }] };
    case 'step.started': {
      const closed = closeStep(state);
      return {
        state: { ...closed.state, step: event.step, textId: null },
        chunks: [...closed.chunks, { type: 'start-step' }],
      };
    }
    case 'text.delta': {
      const opened = openStep(state);
      const chunks = [...opened.chunks];
      let { textId } = opened.state;
      if (textId === null) {
        textId = `text-${opened.state.step}`;
        chunks.push({ type: 'text-start', id: textId });
      }
      chunks.push({ type: 'text-delta', id: textId, delta: event.delta });
      return { state: { ...opened.state, textId }, chunks };
    }
    case 'tool.call': {
      const opened = openStep(state);
      // Parley runs its tools itself and the front end declares none: dynamic tool parts, named as called.
      const chunk: UIMessageChunk = {
        type: 'tool-input-available',
        toolCallId: event.call_id,
        toolName: event.name,
        input: event.arguments,
        dynamic: true,
      };
      return { state: opened.state, chunks: [...opened.chunks, chunk] };
    }
    case 'tool.result': {
      // A denied call never ran: the model read the denial as its result, the front end shows it denied.
      if (state.denied.includes(event.call_id)) {
        return { state, chunks: [{ type: 'tool-output-denied', toolCallId: event.call_id }] };
      }
      const chunk: UIMessageChunk = event.is_error
        ? {
            type: 'tool-output-error',
            toolCallId: event.call_id,
            errorText: textOf(event.output),
            dynamic: true,
          }
        : { type: 'tool-output-available', toolCallId: event.call_id, output: event.output, dynamic: true };
      return { state, chunks: [chunk] };
    }
    case 'questions':
      return { state, chunks: [{ type: 'data-parley-questions', data: { questions: event.questions } }] };
    case 'model.fallback':
      // CONTRACTS §24: data parts, as the questions, so a front end can show that another model answered.
      return {
        state,
        chunks: [
          {
            type: 'data-parley-fallback',
            data: { step: event.step, from: event.from, to: event.to, reason: event.reason },
          },
        ],
      };
    case 'guardrail.triggered':
      return {
        state,
        chunks: [
          {
            type: 'data-parley-guardrail',
            data: { stage: event.stage, kind: event.kind, action: event.action },
          },
        ],
      };
    case 'approval.requested':
      // The call waits for a person (CONTRACTS §19); the approval's id is the call's. Once every waiting call of
      // the step has its request the stream ends (uiMessageSse, awaitingApproval) and the client answers with a
      // request of its own. An approved call's output shows its decision; a denied one ends `output-denied`.
      return {
        state,
        chunks: [{ type: 'tool-approval-request', approvalId: event.call_id, toolCallId: event.call_id }],
      };
    case 'approval.decided':
      return event.decision === 'deny'
        ? { state: { ...state, denied: [...state.denied, event.call_id] }, chunks: [] }
        : { state, chunks: [] };
    case 'message.completed':
      return { state: UI_STREAM_START, chunks: [...closeStep(state).chunks, ...ending(event.message)] };
    default:
      // Lines this protocol has no chunk for (a compaction note) say nothing to the front end.
      return { state, chunks: [] };
  }
}

/**
 * The end of the message stream at a reply that waits for a person (CONTRACTS §17, §19), after the
 * `tool-approval-request` of each waiting call: the step and the message end as the AI SDK's `streamText` ends
 * them at calls that need approval, so `useChat` stops streaming and can send the answers
 * (`lastAssistantMessageIsCompleteWithApprovalResponses`). The reply itself waits on in Parley.
 */
export function awaitingApproval(state: UiStreamState): Translated {
  return {
    state: UI_STREAM_START,
    chunks: [...closeStep(state).chunks, { type: 'finish', finishReason: 'tool-calls' }],
  };
}

/** How the reply ended: `finish`; an error first says why; a cancelled reply is an `abort`. */
function ending(message: FinalMessage): UIMessageChunk[] {
  if (message.status === 'cancelled') return [{ type: 'abort' }];
  if (message.status === 'error') {
    const errorText = message.content || message.error_code || 'The reply failed';
    return [{ type: 'error', errorText }, { type: 'finish' }];
  }
  return [{ type: 'finish' }];
}

/** Text before any step.started still belongs to a step (a reply's lines always open one, but be safe). */
function openStep(state: UiStreamState): Translated {
  if (state.step !== null) return { state, chunks: [] };
  return { state: { ...state, step: 0, textId: null }, chunks: [{ type: 'start-step' }] };
}

function closeStep(state: UiStreamState): Translated {
  if (state.step === null) return { state, chunks: [] };
  const chunks: UIMessageChunk[] = state.textId === null ? [] : [{ type: 'text-end', id: state.textId }];
  chunks.push({ type: 'finish-step' });
  return { state: { ...state, step: null, textId: null }, chunks };
}

const textOf = (output: unknown): string => (typeof output === 'string' ? output : JSON.stringify(output));

/** The SSE comment a heartbeat becomes: it keeps proxies from closing the connection, and clients skip it. */
export const SSE_HEARTBEAT = ': heartbeat\n';
/** The last frame of a stream that reached its reply's end. */
export const SSE_DONE = 'data: [DONE]\n';

/**
 * One SSE frame per chunk, each with the `id` of the line it came from (the reply's seq). Each frame lacks
 * its final blank line: the body writer ends every item with a newline, which closes the frame.
 */
export const sseFrames = (seq: number, chunks: UIMessageChunk[]): string[] =>
  chunks.map((chunk) => `id: ${seq}\ndata: ${JSON.stringify(chunk)}\n`);
