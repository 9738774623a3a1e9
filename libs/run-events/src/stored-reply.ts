import { RunEvent } from './run-event';

/** What PostgreSQL keeps of a finished message (structurally a MessageEntity). */
export interface StoredReply {
  id: string;
  threadId: string;
  role: string;
  status: string;
  /** The stream lines minus `text.delta` and `message.completed`, with their seq; null on user messages. */
  events: Record<string, unknown>[] | null;
  content: string;
  /** Length of each streamed delta, in order (null when the reply never streamed). */
  deltaLengths: number[] | null;
  /** The agent version the reply ran; null when it never ran. */
  agentVersion: number | null;
}

/**
 * Text cut into the deltas it was streamed as, by their stored lengths: the one rule for rebuilding deltas
 * from PostgreSQL, used by replays of a finished reply and by a run that finds its Redis log lost.
 */
export function splitByLengths(text: string, lengths: readonly number[]): string[] {
  const deltas: string[] = [];
  let at = 0;
  for (const length of lengths) {
    deltas.push(text.slice(at, at + length));
    at += length;
  }
  return deltas;
}

/**
 * The text deltas of a finished reply exactly as the runtime streamed them: the content cut by the stored
 * delta lengths. A reply without them (never ran) has none.
 */
export function storedDeltas(reply: StoredReply): string[] {
  return splitByLengths(reply.content, reply.deltaLengths ?? []);
}

/**
 * Every line of a finished message, rebuilt from PostgreSQL once its Redis log has expired, identical to the
 * lines streamed live. `events` keep their seq; the seqs missing between them are the text deltas, in order,
 * and the deltas after the last event run up to `message.completed`, which closes the stream. A user message
 * streams its single `message.completed` line; a reply that never ran (cancelled while pending) the
 * `message.started` and `message.completed` the runtime closes it with.
 */
export function storedReplyLines(reply: StoredReply, message: Record<string, unknown>): RunEvent[] {
  if (reply.role === 'user') return [{ seq: 0, type: 'message.completed', message }];
  if (reply.events === null) {
    return [
      {
        seq: 0,
        type: 'message.started',
        message_id: reply.id,
        thread_id: reply.threadId,
        agent_version: reply.agentVersion,
      },
      { seq: 1, type: 'message.completed', message },
    ];
  }
  const events = (reply.events as unknown as RunEvent[]).slice().sort((a, b) => a.seq - b.seq);
  const deltas = storedDeltas(reply);
  let used = 0;
  const nextDelta = () => (used < deltas.length ? deltas[used++] : '');
  const lines: RunEvent[] = [];
  for (const event of events) {
    if (event.seq < lines.length) continue;
    // A gap longer than the deltas left cannot happen for a reply that stored its lengths; should one be
    // missing, empty deltas keep the seqs whole and the deltas still join to the content.
    while (lines.length < event.seq)
      lines.push({ seq: lines.length, type: 'text.delta', delta: nextDelta() });
    lines.push(event);
  }
  while (used < deltas.length) lines.push({ seq: lines.length, type: 'text.delta', delta: deltas[used++] });
  lines.push({ seq: lines.length, type: 'message.completed', message });
  return lines;
}
