import { RunEvent } from './run-event';

/** What PostgreSQL keeps of a finished reply (structurally a MessageEntity). */
export interface StoredReply {
  /** The stream lines minus `text.delta` and `message.completed`, with their seq; null on user messages. */
  events: Record<string, unknown>[] | null;
  content: string;
}

/**
 * The reply's content cut as the worker streams it: one piece a word with the whitespace around it (the
 * builtin model's `splitWords`, which run-events cannot import: agent sits above it). Joined, the pieces are
 * exactly `content`.
 */
export function splitIntoDeltas(content: string): string[] {
  return content.match(/\s*\S+\s*/g) ?? (content ? [content] : []);
}

/**
 * Every line of a finished reply, rebuilt from PostgreSQL once its Redis log has expired, identical to the
 * lines streamed live. `events` keep their seq; the seqs missing between them are the text deltas, in order,
 * and the deltas after the last event run up to `message.completed`, which closes the stream. The deltas'
 * text comes from cutting `content` as the worker cut it (`splitIntoDeltas`). A user message (events null)
 * streams its single `message.completed` line.
 */
export function storedReplyLines(stored: StoredReply, message: Record<string, unknown>): RunEvent[] {
  if (stored.events === null) return [{ seq: 0, type: 'message.completed', message }];
  const events = (stored.events as unknown as RunEvent[]).slice().sort((a, b) => a.seq - b.seq);
  const deltas = splitIntoDeltas(stored.content);
  let used = 0;
  const nextDelta = () => (used < deltas.length ? deltas[used++] : '');
  const lines: RunEvent[] = [];
  for (const event of events) {
    if (event.seq < lines.length) continue;
    // A gap longer than the content's words is filled with empty deltas: the seqs stay whole and the
    // deltas still join to the content.
    while (lines.length < event.seq)
      lines.push({ seq: lines.length, type: 'text.delta', delta: nextDelta() });
    lines.push(event);
  }
  while (used < deltas.length) lines.push({ seq: lines.length, type: 'text.delta', delta: deltas[used++] });
  lines.push({ seq: lines.length, type: 'message.completed', message });
  return lines;
}
