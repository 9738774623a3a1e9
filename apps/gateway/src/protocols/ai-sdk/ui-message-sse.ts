import { ReplyStream, RunEvent } from '@app/run-events';
import {
  awaitingApproval,
  SSE_DONE,
  SSE_HEARTBEAT,
  sseFrames,
  toUiMessageChunks,
  UI_STREAM_START,
} from './ui-message-stream';

/** A chat's reply stream, and the reply it is of. */
export interface ChatReplyStream {
  replyId: string;
  lines: ReplyStream;
}

/**
 * The calls of a reply's step that wait for a person: each of the step's approvals when one of them is still
 * undecided, else none (the step went on, or is about to, and its stream with it).
 */
export type WaitingCalls = (step: number) => Promise<ReadonlySet<string>>;

/**
 * A reply stream read as the AI SDK's SSE frames: the same reader (replay, then live, then PostgreSQL once
 * Redis forgot), each line translated. `[DONE]` only after the reply's end, or once every waiting call of a
 * step has its `tool-approval-request` (the reply waits for a person; the client answers with a new request, as
 * with the AI SDK's own `streamText`). A stream cut before it (a stall, a shutdown) ends without it, and the
 * client resumes through GET /ai-sdk/chat/{id}/stream.
 */
export function uiMessageSse(lines: ReplyStream, waitingCalls: WaitingCalls): ReplyStream {
  let awaitsApproval = false;
  async function* frames(): AsyncGenerator<Buffer> {
    let state = UI_STREAM_START;
    let ended = false;
    // The step whose approval requests are going out, and its waiting calls not announced yet.
    let requestsOf: number | null = null;
    const unannounced = new Set<string>();
    for await (const line of lines) {
      const event = JSON.parse(line.toString('utf8')) as RunEvent | { type: 'heartbeat' };
      if (event.type === 'heartbeat') {
        yield Buffer.from(SSE_HEARTBEAT);
        continue;
      }
      const translated = toUiMessageChunks(state, event);
      state = translated.state;
      for (const frame of sseFrames(event.seq, translated.chunks)) yield Buffer.from(frame);
      if (event.type === 'message.completed') ended = true;
      if (event.type !== 'approval.requested') continue;
      // The rows are stored before their lines go out, so the first line of a step finds all of them.
      if (requestsOf !== event.step) {
        requestsOf = event.step;
        unannounced.clear();
        for (const callId of await waitingCalls(event.step)) unannounced.add(callId);
      }
      if (!unannounced.delete(event.call_id) || unannounced.size > 0) continue;
      for (const frame of sseFrames(event.seq, awaitingApproval(state).chunks)) yield Buffer.from(frame);
      awaitsApproval = true;
      break;
    }
    if (ended || awaitsApproval) yield Buffer.from(SSE_DONE);
    // Ended at the wait: the reader's subscription is released now, not when the reply goes on.
    if (awaitsApproval) lines.close();
  }
  const iterator = frames();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: () => lines.close(),
    get interrupted() {
      // A stream ended at a wait is complete: its connection may be kept alive for the answer.
      return !awaitsApproval && lines.interrupted;
    },
  };
}
