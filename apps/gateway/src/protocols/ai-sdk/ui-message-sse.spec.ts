import { ReplyStream, RunEvent } from '@app/run-events';
import { WaitingCallsOfStep } from '../reply-waits';
import { uiMessageSse } from './ui-message-sse';

const REPLY_ID = '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11';

/**
 * A reply stream of these lines: it ends after `message.completed`, as the reader does; without one (a live reply
 * that waits) heartbeats follow until it is closed.
 */
function replyStream(lines: RunEvent[]): ReplyStream & { closed: boolean } {
  const stream = {
    closed: false,
    interrupted: false,
    close() {
      stream.closed = true;
      stream.interrupted = true;
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
      for (const line of lines) yield Buffer.from(JSON.stringify(line));
      if (lines.at(-1)?.type === 'message.completed') return;
      while (!stream.closed) {
        yield Buffer.from(JSON.stringify({ type: 'heartbeat' }));
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
  return stream;
}

/** The stream's SSE text, to its end, with heartbeats left out. */
async function framesOf(stream: ReplyStream): Promise<string[]> {
  const frames: string[] = [];
  for await (const frame of stream) {
    const text = frame.toString('utf8');
    if (!text.startsWith(':')) frames.push(text);
  }
  return frames;
}

const chunksOf = (frames: string[]): unknown[] =>
  frames.flatMap((frame) => {
    const data = /^data: (\{.*)$/m.exec(frame);
    return data ? [JSON.parse(data[1])] : [];
  });

/** A step of two calls that both wait for a person. */
const WAITING_STEP: RunEvent[] = [
  { seq: 0, type: 'message.started', message_id: REPLY_ID, thread_id: 't' },
  { seq: 1, type: 'step.started', step: 1 },
  { seq: 2, type: 'text.delta', delta: 'Let me check.' },
  { seq: 3, type: 'tool.call', step: 1, call_id: 'c1', name: 'clock', arguments: {} },
  { seq: 4, type: 'tool.call', step: 1, call_id: 'c2', name: 'clock', arguments: { again: true } },
  { seq: 5, type: 'approval.requested', step: 1, call_id: 'c1', name: 'clock', arguments: {} },
  { seq: 6, type: 'approval.requested', step: 1, call_id: 'c2', name: 'clock', arguments: { again: true } },
];

describe('uiMessageSse', () => {
  it('ends the message stream once every waiting call of the step has its approval request, as streamText does', async () => {
    const lines = replyStream(WAITING_STEP);
    const asked: number[] = [];
    const waiting: WaitingCallsOfStep = (step) => {
      asked.push(step);
      return Promise.resolve(new Set(['c1', 'c2']));
    };
    const stream = uiMessageSse(lines, waiting);
    const frames = await framesOf(stream);
    expect(chunksOf(frames).slice(-5)).toEqual([
      { type: 'tool-approval-request', approvalId: 'c1', toolCallId: 'c1' },
      { type: 'tool-approval-request', approvalId: 'c2', toolCallId: 'c2' },
      { type: 'text-end', id: 'text-1' },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    expect(frames.at(-1)).toBe('data: [DONE]\n');
    // Asked once for the step; the reader let go; and the stream counts as complete, not cut.
    expect(asked).toEqual([1]);
    expect(lines.closed).toBe(true);
    expect(stream.interrupted).toBe(false);
  });

  it('goes on past approval requests of a step already decided (a resumed stream of a reply that went on)', async () => {
    const lines = replyStream([
      ...WAITING_STEP,
      { seq: 7, type: 'approval.decided', step: 1, call_id: 'c1', decision: 'approve' },
      { seq: 8, type: 'approval.decided', step: 1, call_id: 'c2', decision: 'deny' },
      { seq: 9, type: 'message.completed', message: { status: 'success', content: 'Let me check.' } },
    ]);
    const frames = await framesOf(uiMessageSse(lines, () => Promise.resolve(new Set<string>())));
    const types = chunksOf(frames).map((chunk) => (chunk as { type: string }).type);
    expect(types.filter((type) => type === 'finish')).toHaveLength(1);
    expect(types.slice(-3)).toEqual(['text-end', 'finish-step', 'finish']);
    expect(frames.at(-1)).toBe('data: [DONE]\n');
  });
});
