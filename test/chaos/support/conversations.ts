import { Client } from 'pg';
import { api } from '../../support/http';

type Api = ReturnType<typeof api>;
type Line = {
  seq?: number;
  type: string;
  step?: number;
  call_id?: string;
  delta?: string;
  message?: { status: string };
};

/** What the issue asks each chaos test to report: all zero but where an error is the right answer. */
export interface ChaosCounts {
  completed: number;
  lost: number;
  stuck: number;
  duplicatedToolCalls: number;
  streamGaps: number;
  streamDuplicates: number;
}

export const noCounts = (): ChaosCounts => ({
  completed: 0,
  lost: 0,
  stuck: 0,
  duplicatedToolCalls: 0,
  streamGaps: 0,
  streamDuplicates: 0,
});

/** The counts of `completed` replies that all completed: nothing lost, stuck, repeated or out of order. */
export const onlyCompleted = (completed: number): ChaosCounts => ({ ...noCounts(), completed });

/** The counts of replies read to their end (readReply) by what their streams showed; none lost or repeated a tool. */
export const streamCounts = (
  results: { completed: boolean; gaps: number; duplicates: number }[],
): ChaosCounts => ({
  ...noCounts(),
  completed: results.filter((result) => result.completed).length,
  stuck: results.filter((result) => !result.completed).length,
  streamGaps: results.reduce((sum, result) => sum + result.gaps, 0),
  streamDuplicates: results.reduce((sum, result) => sum + result.duplicates, 0),
});

/**
 * Reads a reply's stream to `message.completed`, reconnecting with `after` when a connection breaks or ends
 * early, within `deadlineMs`. Counts gaps (a seq skipped) and duplicates (a seq seen twice) as they arrive.
 */
export async function readReply(
  baseUrl: string,
  key: string,
  messageId: string,
  deadlineMs: number,
): Promise<{ lines: Line[]; completed: boolean; gaps: number; duplicates: number }> {
  const lines: Line[] = [];
  let gaps = 0;
  let duplicates = 0;
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    const last = lines.length > 0 ? lines[lines.length - 1].seq : undefined;
    const query = last === undefined ? '' : `?after=${last}`;
    try {
      const response = await fetch(`${baseUrl}/chat/messages/${messageId}/stream${query}`, {
        headers: { 'x-service-token': key },
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
      });
      if (response.status !== 200 || !response.body) throw new Error(`stream answered ${response.status}`);
      let buffer = '';
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += Buffer.from(chunk).toString('utf8');
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const text = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (!text) continue;
          const line = JSON.parse(text) as Line;
          if (line.seq === undefined) continue; // heartbeat
          const expected = lines.length === 0 ? 0 : lines[lines.length - 1].seq! + 1;
          if (line.seq < expected) duplicates++;
          else {
            if (line.seq > expected) gaps++;
            lines.push(line);
          }
          if (line.type === 'message.completed') return { lines, completed: true, gaps, duplicates };
        }
      }
    } catch {
      // cut, refused or timed out: resume after the last seq
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { lines, completed: false, gaps, duplicates };
}

/** Tool calls a stored reply ran more than once: the same (step, call_id) twice in its events, or rows > calls. */
export async function duplicatedToolCalls(databaseUrl: string, messageIds: string[]): Promise<number> {
  if (messageIds.length === 0) return 0;
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ events: Line[] | null }>(
      'SELECT events FROM messages WHERE id = ANY($1::uuid[])',
      [messageIds],
    );
    let duplicated = 0;
    for (const { events } of rows) {
      const calls = (events ?? []).filter((event) => event.type === 'tool.call');
      duplicated += calls.length - new Set(calls.map((call) => `${call.step}:${call.call_id}`)).size;
    }
    return duplicated;
  } finally {
    await client.end();
  }
}

/** Counts threads of the deployment: a refused request must store none. */
export async function threadCount(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM threads')).rows[0].n);
  } finally {
    await client.end();
  }
}

/** Starts a conversation; returns the reply's id. */
export async function startConversation(
  client: Api,
  agentId: string,
  content: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await client.post(
    '/chat',
    { message: { content }, options: { agent_id: agentId, user_id: 'chaos-user' } },
    headers,
  );
  if (response.status !== 200)
    throw new Error(`POST /chat answered ${response.status}: ${JSON.stringify(response.body)}`);
  return (response.body as { messages: { id: string; role: string }[] }).messages.find(
    (message) => message.role === 'assistant',
  )!.id;
}

/**
 * Follows every reply to its end (or the deadline) and adds up the counts: a reply whose stream completed is
 * `completed`, one still live in PostgreSQL at the deadline is `stuck`, one gone is `lost`.
 */
export async function settle(
  baseUrl: string,
  key: string,
  databaseUrl: string,
  messageIds: string[],
  deadlineMs: number,
): Promise<ChaosCounts> {
  const counts = noCounts();
  const results = await Promise.all(messageIds.map((id) => readReply(baseUrl, key, id, deadlineMs)));
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const [index, result] of results.entries()) {
      counts.streamGaps += result.gaps;
      counts.streamDuplicates += result.duplicates;
      if (result.completed) {
        counts.completed++;
        continue;
      }
      const { rows } = await client.query<{ status: string }>('SELECT status FROM messages WHERE id = $1', [
        messageIds[index],
      ]);
      if (rows.length === 0) counts.lost++;
      else counts.stuck++;
    }
  } finally {
    await client.end();
  }
  counts.duplicatedToolCalls = await duplicatedToolCalls(databaseUrl, messageIds);
  return counts;
}

/** What an open-loop load saw: the replies it started, and every answer that was not a 200, by status. */
export interface OpenLoopResult {
  started: string[];
  refusals: Record<number, number>;
}

/**
 * Open-loop load, as real clients make it: a new conversation every `intervalMs` until `stop()`, whether or not
 * earlier ones have been answered (a closed loop would slow down with the service and hide the fault). Each
 * answer is either a started reply or counted by status (a network error counts as status 0).
 */
export function openLoop(
  client: () => Api,
  agentId: string,
  content: (index: number) => string,
  intervalMs: number,
): { started: () => string[]; stop: () => Promise<OpenLoopResult> } {
  const result: OpenLoopResult = { started: [], refusals: {} };
  const pending: Promise<void>[] = [];
  let index = 0;
  const send = () => {
    const conversation = index++;
    pending.push(
      client()
        .post('/chat', {
          message: { content: content(conversation) },
          options: { agent_id: agentId, user_id: 'chaos-user' },
        })
        .then(
          (response) => {
            if (response.status === 200)
              result.started.push(
                (response.body as { messages: { id: string; role: string }[] }).messages.find(
                  (message) => message.role === 'assistant',
                )!.id,
              );
            else result.refusals[response.status] = (result.refusals[response.status] ?? 0) + 1;
          },
          () => {
            result.refusals[0] = (result.refusals[0] ?? 0) + 1;
          },
        ),
    );
  };
  send();
  const timer = setInterval(send, intervalMs);
  return {
    started: () => [...result.started],
    stop: async () => {
      clearInterval(timer);
      await Promise.all(pending);
      return result;
    },
  };
}

/**
 * The open loop most fault tests run: a conversation with a tool call every 100 ms, each reply (one step, a
 * `clock` call and 100 ms of sleep) saying it ran across `fault`.
 */
export const toolCallLoad = (stack: { client(): Api; agentId: string }, fault: string) =>
  openLoop(
    () => stack.client(),
    stack.agentId,
    (i) => `/tool clock {}\n/sleep 100\n/say reply ${i} across ${fault}`,
    100,
  );
