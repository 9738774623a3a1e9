import { api } from '../support/http';
import { queryDatabase } from '../support/test-environment';
import { startThread } from './replies.support';
import { Line, numbered, OpenStream } from './stream.support';

/** What the conversation suite needs from a deployment under test: a gateway, a key, an agent, its database. */
export interface Deployment {
  gatewayUrl: string;
  key: string;
  agentId: string;
  databaseUrl: string;
}

const USER = 'engine-user';

/**
 * The conversation paths every engine (PgBouncer, Redis Cluster) must carry, on real gateway and worker
 * processes: chat, the reply stream, a tool round, cancellation, and replies kept in order.
 */
export function conversationSuite(deployment: () => Deployment): void {
  const client = () => api(deployment().gatewayUrl, deployment().key);

  const start = (content: string) => startThread(client(), deployment().agentId, USER, content);

  function stream(messageId: string): OpenStream {
    return new OpenStream(`${deployment().gatewayUrl}/chat/messages/${messageId}/stream`, deployment().key);
  }

  /** The stream's lines once it ended, checked against the stored reply (CONTRACTS §5). */
  async function completedLines(messageId: string, threadId: string): Promise<Line[]> {
    const lines = numbered(await stream(messageId).all());
    expect(lines.map((line) => line.seq)).toEqual(lines.map((_, index) => index));
    const last = lines[lines.length - 1];
    expect(last.type).toBe('message.completed');
    const thread = await client().get(`/chat/${threadId}?user_id=${USER}`);
    const stored = thread.body.messages.find((message: { id: string }) => message.id === messageId);
    expect(last.message).toEqual(stored);
    const deltas = lines.filter((line) => line.type === 'text.delta').map((line) => line.delta);
    expect(deltas.join('')).toBe(stored.content);
    return lines;
  }

  it('answers a chat and streams the reply word by word', async () => {
    const { threadId, replyId } = await start('/say hello from behind the engine');
    const lines = await completedLines(replyId, threadId);
    expect(lines[0]).toMatchObject({ type: 'message.started', message_id: replyId, thread_id: threadId });
    expect(lines[lines.length - 1].message).toMatchObject({
      status: 'success',
      content: 'hello from behind the engine',
    });
  });

  it('runs a tool round and answers with its output', async () => {
    const { threadId, replyId } = await start('/tool clock {}');
    const lines = await completedLines(replyId, threadId);
    const result = lines.find((line) => line.type === 'tool.result');
    expect(result).toMatchObject({ name: 'clock', is_error: false, step: 1 });
    expect(lines[lines.length - 1].message).toMatchObject({ status: 'success' });
    const calls = await queryDatabase<{ n: number }>(
      deployment().databaseUrl,
      'SELECT count(*)::int AS n FROM tool_calls WHERE message_id = $1',
      [replyId],
    );
    expect(calls[0].n).toBe(1);
  });

  it('cancels a running reply when its thread is deleted', async () => {
    const { threadId, replyId } = await start(`/sleep 200\n/say ${'word '.repeat(100)}`);
    const live = stream(replyId);
    await live.waitFor((line) => line.type === 'text.delta');
    expect((await client().delete(`/chat/${threadId}?user_id=${USER}`)).status).toBe(204);
    const lines = numbered(await live.all());
    const last = lines[lines.length - 1];
    expect(last.type).toBe('message.completed');
    expect(last.message).toMatchObject({ status: 'cancelled', live: false });
    expect(lines.filter((line) => line.type === 'text.delta').length).toBeLessThan(100);
  });

  it('runs the replies of a thread one at a time, in order', async () => {
    const { threadId, replyId } = await start('/sleep 30\n/say first reply here');
    const replies = [replyId];
    for (const word of ['second', 'third']) {
      const response = await client().post(`/chat/${threadId}`, {
        message: { content: `/sleep 30\n/say ${word} reply here` },
        options: { user_id: USER },
      });
      expect(response.status).toBe(200);
      replies.push(response.body.id);
    }
    for (const id of replies) await completedLines(id, threadId);
    const rows = await queryDatabase<{ content: string; started: Date; completed_at: Date }>(
      deployment().databaseUrl,
      `SELECT m.content, m.completed_at,
              (SELECT min(started_at) FROM run_steps s WHERE s.message_id = m.id) AS started
       FROM messages m WHERE m.thread_id = $1 AND m.role = 'assistant' ORDER BY m.position`,
      [threadId],
    );
    expect(rows.map((row) => row.content)).toEqual([
      'first reply here',
      'second reply here',
      'third reply here',
    ]);
    for (let index = 1; index < rows.length; index++) {
      expect(rows[index].started.getTime()).toBeGreaterThanOrEqual(rows[index - 1].completed_at.getTime());
    }
  });
}
