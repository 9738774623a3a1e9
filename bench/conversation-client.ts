/**
 * One conversation as the benchmarks' clients hold it: `POST /chat`, then the reply stream read to
 * `message.completed`, timed from the POST.
 */
import { performance } from 'node:perf_hooks';

export interface Conversation {
  postMs: number;
  firstDeltaMs: number;
  totalMs: number;
}

/** An organization's endpoint, key and agent. */
export interface Target {
  url: string;
  key: string;
  agentId: string;
}

/** The service refused to start the reply (503 at capacity, admission control): nothing was stored. */
export class RefusedError extends Error {
  constructor(readonly retryAfter: string | null) {
    super(`POST /chat: 503, Retry-After ${retryAfter}`);
  }
}

/**
 * Throws when the stream ends without `message.completed`, or, with `expected`, when the deltas joined are another
 * text; RefusedError on a 503. Without `expected` the lines are only searched, not parsed: the load generator then
 * costs the least. `started` (a `performance.now()`, default now) is when the conversation was due: an open loop
 * passes its scheduled time, so a late start counts against the service, not for it.
 */
export async function converse(
  target: Target,
  content: string,
  expected?: string,
  started = performance.now(),
): Promise<Conversation> {
  const posted = await fetch(`${target.url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': target.key },
    body: JSON.stringify({ message: { content }, options: { agent_id: target.agentId, user_id: 'bench' } }),
  });
  if (posted.status === 503) {
    await posted.arrayBuffer();
    throw new RefusedError(posted.headers.get('retry-after'));
  }
  if (posted.status !== 200) throw new Error(`POST /chat: ${posted.status} ${await posted.text()}`);
  const thread = (await posted.json()) as { messages: { id: string }[] };
  const postMs = performance.now() - started;
  const { firstDeltaMs } = await readReply(target, thread.messages[1].id, started, expected);
  return { postMs, firstDeltaMs, totalMs: performance.now() - started };
}

/**
 * Reads a reply's stream to `message.completed`; `firstDeltaMs` counts from `started` (a `performance.now()`).
 * Throws as `converse` does.
 */
export async function readReply(
  target: Target,
  replyId: string,
  started: number,
  expected?: string,
): Promise<{ firstDeltaMs: number }> {
  const stream = await fetch(`${target.url}/chat/messages/${replyId}/stream`, {
    headers: { 'x-service-token': target.key },
  });
  if (!stream.ok || !stream.body) throw new Error(`stream: ${stream.status}`);
  let firstDeltaMs = 0;
  let text = '';
  let completed = false;
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of stream.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.includes('"type":"text.delta"')) {
        if (!firstDeltaMs) firstDeltaMs = performance.now() - started;
        if (expected !== undefined) text += (JSON.parse(line) as { delta: string }).delta;
      } else if (line.includes('"type":"message.completed"')) completed = true;
    }
  }
  if (!completed) throw new Error('stream closed before message.completed');
  if (expected !== undefined && text !== expected)
    throw new Error(`reply text differs: ${text.slice(0, 80)}…`);
  return { firstDeltaMs };
}
