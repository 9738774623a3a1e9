import { RunEvent } from './run-event';

/** What PostgreSQL keeps of a finished message (structurally a MessageEntity), and of its run's steps. */
export interface StoredReply {
  id: string;
  threadId: string;
  role: string;
  status: string;
  /** The stream lines minus `text.delta` and `message.completed`, with their seq; null on user messages. */
  events: Record<string, unknown>[] | null;
  content: string;
}

/** A model call of the run: its text, and the length of the reply's content once it ended (run_steps). */
export interface StoredStep {
  text: string;
  contentLength: number;
}

/**
 * Text cut as the builtin model streams it: one piece a word with the whitespace around it (its `splitWords`,
 * which run-events cannot import: agent sits above it). Joined, the pieces are exactly the text.
 */
export function splitIntoDeltas(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

/**
 * The text deltas of a finished reply, as the runtime emitted them: each step's text in the model's words
 * (`splitIntoDeltas`), then whatever the content holds past the last recorded step. That rest is the closing
 * text of a reply that ended in error (budget spent, model or run failure), which the runtime writes as a
 * single delta, or the words of a step cut short by a cancellation.
 */
export function storedDeltas(reply: StoredReply, steps: StoredStep[]): string[] {
  const deltas: string[] = [];
  let at = 0;
  for (const step of steps) {
    if (step.contentLength < at || step.contentLength > reply.content.length)
      return splitIntoDeltas(reply.content);
    deltas.push(...splitIntoDeltas(reply.content.slice(at, step.contentLength)));
    at = step.contentLength;
  }
  const rest = reply.content.slice(at);
  if (reply.status === 'error') deltas.push(...(rest ? [rest] : []));
  else deltas.push(...splitIntoDeltas(rest));
  return deltas;
}

/**
 * Every line of a finished message, rebuilt from PostgreSQL once its Redis log has expired, identical to the
 * lines streamed live. `events` keep their seq; the seqs missing between them are the text deltas, in order,
 * and the deltas after the last event run up to `message.completed`, which closes the stream. A user message
 * streams its single `message.completed` line; a reply that never ran (cancelled while pending) the
 * `message.started` and `message.completed` the runtime closes it with.
 */
export function storedReplyLines(
  reply: StoredReply,
  steps: StoredStep[],
  message: Record<string, unknown>,
): RunEvent[] {
  if (reply.role === 'user') return [{ seq: 0, type: 'message.completed', message }];
  if (reply.events === null) {
    return [
      { seq: 0, type: 'message.started', message_id: reply.id, thread_id: reply.threadId },
      { seq: 1, type: 'message.completed', message },
    ];
  }
  const events = (reply.events as unknown as RunEvent[]).slice().sort((a, b) => a.seq - b.seq);
  const deltas = storedDeltas(reply, steps);
  let used = 0;
  const nextDelta = () => (used < deltas.length ? deltas[used++] : '');
  const lines: RunEvent[] = [];
  for (const event of events) {
    if (event.seq < lines.length) continue;
    // A gap longer than the deltas left (a model that cut its text otherwise) is filled with empty deltas:
    // the seqs stay whole and the deltas still join to the content.
    while (lines.length < event.seq)
      lines.push({ seq: lines.length, type: 'text.delta', delta: nextDelta() });
    lines.push(event);
  }
  while (used < deltas.length) lines.push({ seq: lines.length, type: 'text.delta', delta: deltas[used++] });
  lines.push({ seq: lines.length, type: 'message.completed', message });
  return lines;
}
