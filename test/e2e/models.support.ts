import { api } from '../support/http';

/** A line of the reply stream (CONTRACTS §5). */
export type Line = Record<string, any> & { type: string; seq?: number };

export interface Reply {
  threadId: string;
  lines: Line[];
  /** The final Message, as the stream's last line carries it. */
  message: Record<string, any>;
}

/**
 * Starts a thread with one message to the agent and reads the reply's stream through the gateway until it
 * closes after `message.completed`.
 */
export async function runReply(
  gatewayUrl: string,
  token: string,
  agentId: string,
  content: string,
  message: Record<string, unknown> = {},
): Promise<Reply> {
  const started = await api(gatewayUrl, token).post('/chat', {
    message: { content, ...message },
    options: { agent_id: agentId, user_id: 'models-user' },
  });
  if (started.status !== 200)
    throw new Error(`POST /chat answered ${started.status}: ${JSON.stringify(started.body)}`);
  const replyId = started.body.messages[1].id as string;
  const lines = await readStream(gatewayUrl, token, replyId);
  const last = lines[lines.length - 1];
  if (last?.type !== 'message.completed') throw new Error(`stream ended early: ${JSON.stringify(lines)}`);
  return { threadId: started.body.id as string, lines, message: last.message };
}

/** Every line of a reply's stream but heartbeats, read to its end (within 30 s) with the service token. */
export async function readStream(gatewayUrl: string, token: string, replyId: string): Promise<Line[]> {
  const response = await fetch(`${gatewayUrl}/chat/messages/${replyId}/stream`, {
    headers: { 'x-service-token': token },
    signal: AbortSignal.timeout(30000),
  });
  return (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line)
    .filter((line) => line.type !== 'heartbeat');
}

export const ofType = (lines: Line[], type: string) => lines.filter((line) => line.type === type);

export const contentOf = (lines: Line[]) =>
  ofType(lines, 'text.delta')
    .map((line) => line.delta as string)
    .join('');

/**
 * Each line type with its sorted keys, in stream order: what "the same shape" compares. A run of text deltas counts
 * once: how many lines a step's words travel in depends on timing (CONTRACTS §5), not on the model.
 */
export const shape = (lines: Line[]) =>
  lines
    .map((line) => `${line.type}:${Object.keys(line).sort().join(',')}`)
    .filter((entry, index, entries) => !(entry.startsWith('text.delta:') && entries[index - 1] === entry));
