import { ReplyStream, RunEvent } from '@app/run-events';
import { SSE_DONE, SSE_HEARTBEAT, sseFrames, toUiMessageChunks, UI_STREAM_START } from './ui-message-stream';

/**
 * A reply stream read as the AI SDK's SSE frames: the same reader (replay, then live, then PostgreSQL once
 * Redis forgot), each line translated. `[DONE]` only after the reply's end: a stream cut before it (a stall,
 * a shutdown) ends without it, and the client resumes through GET /ai-sdk/chat/{id}/stream.
 */
export function uiMessageSse(lines: ReplyStream): ReplyStream {
  async function* frames(): AsyncGenerator<Buffer> {
    let state = UI_STREAM_START;
    let ended = false;
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
    }
    if (ended) yield Buffer.from(SSE_DONE);
  }
  const iterator = frames();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: () => lines.close(),
    get interrupted() {
      return lines.interrupted;
    },
  };
}
