import { ReplyStream, RunEvent } from '@app/run-events';
import { ReplyWaitReader, WaitingCallsOfStep } from '../reply-waits';
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
 * A reply stream read as the AI SDK's SSE frames: the same reader (replay, then live, then PostgreSQL once
 * Redis forgot), each line translated. `[DONE]` only after the reply's end, or once every waiting call of a
 * step has its `tool-approval-request` (the reply waits for a person; the client answers with a new request, as
 * with the AI SDK's own `streamText`). A stream cut before it (a stall, a shutdown) ends without it, and the
 * client resumes through GET /ai-sdk/chat/{id}/stream.
 */
export function uiMessageSse(lines: ReplyStream, waitingCalls: WaitingCallsOfStep): ReplyStream {
  let awaitsApproval = false;
  async function* frames(): AsyncGenerator<Buffer> {
    let state = UI_STREAM_START;
    let ended = false;
    const waits = new ReplyWaitReader(waitingCalls);
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
      // Once every waiting call of the step has its tool-approval-request.
      if (!(await waits.after(event))) continue;
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
