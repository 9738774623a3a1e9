import { decodeEvent, EVENT_FIELD, RunEvent, runEventKeys } from '@app/run-events';
import { useDeployment } from '../support/deployment';
import { api } from '../support/http';
import { queryDatabase } from '../support/test-environment';
import { startThread } from './replies.support';

/**
 * Follow-ups sent while a reply is live (CONTRACTS §12), on a real gateway and worker: `enqueue` queues,
 * `reject` refuses with 409 and stores nothing, `interrupt` cancels the live reply keeping what it produced.
 */
const deployment = useDeployment({ workers: 1, workerEnv: { WORKER_HEALTH_PORT: '0' }, agent: true });
let client: ReturnType<typeof api>;
const USER = 'user-1';
const SLOW_REPLY = `/sleep 150\n/say ${'word '.repeat(60)}`; // about 9 s

beforeAll(() => {
  client = deployment.client();
});

const start = (content: string) => startThread(client, deployment.agentId, USER, content);

const followUp = (threadId: string, content: string, strategy?: string) =>
  client.post(`/chat/${threadId}`, {
    message: { content },
    options: { user_id: USER, ...(strategy ? { multitask_strategy: strategy } : {}) },
  });

async function events(messageId: string): Promise<RunEvent[]> {
  const entries = await deployment.redis.xrange(
    runEventKeys(deployment.environment.redisPrefix, messageId).stream,
    '-',
    '+',
  );
  return entries.map(([, fields]) => decodeEvent(fields[fields.indexOf(EVENT_FIELD) + 1]));
}

async function waitFor(messageId: string, done: (stream: RunEvent[]) => boolean, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const written = await events(messageId);
    if (done(written)) return written;
    if (Date.now() > deadline)
      throw new Error(`reply ${messageId} never got there: ${JSON.stringify(written)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const deltaCount = (stream: RunEvent[]) => stream.filter((event) => event.type === 'text.delta').length;
const isCompleted = (stream: RunEvent[]) => stream.some((event) => event.type === 'message.completed');

const messageRows = (threadId: string) =>
  queryDatabase<{ id: string; role: string; status: string; content: string; position: number }>(
    deployment.environment.databaseUrl,
    'SELECT id, role, status, content, position FROM messages WHERE thread_id = $1 ORDER BY position',
    [threadId],
  );

describe('multitask_strategy', () => {
  it('answers 422 (enum) for an unknown strategy', async () => {
    const { threadId } = await start('hello');
    const response = await followUp(threadId, 'again', 'shout');
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'options', 'multitask_strategy'],
        type: 'enum',
        input: 'shout',
      }),
    ]);
  });

  it('enqueue: the follow-up waits behind the live reply and both succeed in order', async () => {
    const { threadId, replyId } = await start('/sleep 30\n/say first reply');
    const response = await followUp(threadId, '/say second reply', 'enqueue');
    expect(response.status).toBe(200);
    await waitFor(response.body.id, isCompleted);
    const rows = await messageRows(threadId);
    expect(
      rows.filter((row) => row.role === 'assistant').map((row) => [row.id, row.status, row.content]),
    ).toEqual([
      [replyId, 'success', 'first reply'],
      [response.body.id, 'success', 'second reply'],
    ]);
  });

  it('reject: 409 while a reply is live, and nothing is stored', async () => {
    const { threadId, replyId } = await start(SLOW_REPLY);
    // The rows of the thread, not their state: the live reply moves on (pending → running) meanwhile.
    const stored = async () =>
      (await messageRows(threadId)).map(({ id, role, position }) => ({ id, role, position }));
    const before = await stored();
    const response = await followUp(threadId, 'are you done?', 'reject');
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ detail: 'Thread has a live reply' });
    expect(await stored()).toEqual(before);

    await waitFor(replyId, isCompleted, 30000);
    const accepted = await followUp(threadId, '/say now then', 'reject');
    expect(accepted.status).toBe(200);
  });

  it('reject: of two concurrent follow-ups on an idle thread, exactly one passes', async () => {
    const { threadId, replyId } = await start('/say idle now');
    await waitFor(replyId, isCompleted);
    // Replies far longer than the two calls take, so the one that passes is still live when the other decides.
    const responses = await Promise.all([
      followUp(threadId, SLOW_REPLY, 'reject'),
      followUp(threadId, SLOW_REPLY, 'reject'),
    ]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409]);
    expect(await messageRows(threadId)).toHaveLength(4);
  });

  it('interrupt: the live reply ends cancelled with its partial content, then the new one runs', async () => {
    const { threadId, replyId } = await start(SLOW_REPLY);
    await waitFor(replyId, (stream) => deltaCount(stream) >= 3);
    const response = await followUp(threadId, '/say after the interruption', 'interrupt');
    expect(response.status).toBe(200);
    const newReplyId = response.body.id as string;

    const interrupted = await waitFor(replyId, isCompleted, 10000);
    const last = interrupted[interrupted.length - 1];
    const partial = interrupted.flatMap((event) => (event.type === 'text.delta' ? [event.delta] : []));
    expect(partial.length).toBeGreaterThanOrEqual(3);
    expect(partial.length).toBeLessThan(60);
    expect(last.type === 'message.completed' && last.message).toMatchObject({
      id: replyId,
      status: 'cancelled',
      live: false,
      content: partial.join(''),
    });
    expect(last.type === 'message.completed' && last.message.events).toEqual(
      interrupted.filter((event) => event.type !== 'text.delta' && event.type !== 'message.completed'),
    );

    await waitFor(newReplyId, isCompleted);
    const rows = await messageRows(threadId);
    expect(rows.map((row) => [row.role, row.status])).toEqual([
      ['user', 'success'],
      ['assistant', 'cancelled'],
      ['user', 'success'],
      ['assistant', 'success'],
    ]);
    expect(rows[1].content).toBe(partial.join(''));
    expect(rows[3].content).toBe('after the interruption');
    // The new run started after the interrupted one had ended, so its history held that reply as it ended.
    const [timing] = await queryDatabase<{ ended: Date; started: Date }>(
      deployment.environment.databaseUrl,
      `SELECT (SELECT completed_at FROM messages WHERE id = $1) AS ended,
              (SELECT min(started_at) FROM run_steps WHERE message_id = $2) AS started`,
      [replyId, newReplyId],
    );
    expect(timing.started.getTime()).toBeGreaterThanOrEqual(timing.ended.getTime());
  });

  it('interrupt: a pending reply queued behind the running one is cancelled too', async () => {
    const { threadId, replyId } = await start(SLOW_REPLY);
    await waitFor(replyId, (stream) => deltaCount(stream) >= 1);
    const queued = await followUp(threadId, '/say queued', 'enqueue');
    const interrupting = await followUp(threadId, '/say last word', 'interrupt');
    expect([queued.status, interrupting.status]).toEqual([200, 200]);
    await waitFor(interrupting.body.id, isCompleted);
    const queuedStream = await waitFor(queued.body.id, isCompleted);
    const rows = await messageRows(threadId);
    expect(rows.filter((row) => row.role === 'assistant').map((row) => row.status)).toEqual([
      'cancelled',
      'cancelled',
      'success',
    ]);
    const last = queuedStream[queuedStream.length - 1];
    expect(last.type === 'message.completed' && last.message.status).toBe('cancelled');
  });
});
