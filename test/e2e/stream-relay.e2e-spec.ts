import { randomUUID } from 'node:crypto';
import { encodeEvent, EVENT_FIELD, RunEvent, runEventKeys, streamEntryId } from '@app/run-events';
import { useDeployment } from '../support/deployment';
import { OrgFixture } from '../factories/admin';
import { startGateway } from '../support/processes';
import { queryDatabase } from '../support/test-environment';
import { finalMessage, numbered, OpenStream, sleep, stalledClient, until } from './stream.support';

/**
 * The gateway's relay on its own: replies are written straight to Redis in the worker's wire format and
 * the rows put in PostgreSQL by hand, so what is checked here is only what the gateway does with them.
 */
const deployment = useDeployment({ env: { STREAM_HEARTBEAT_MS: '300' }, gateways: 2, agent: true });
let other: OrgFixture;

beforeAll(async () => {
  other = await deployment.createOrg();
});

interface Seeded {
  threadId: string;
  questionId: string;
  replyId: string;
}

/** A thread of `userId` with a user message and a pending reply, as POST /chat stores them. */
async function seedThread(userId = 'u1', archived = false): Promise<Seeded> {
  const seeded = { threadId: randomUUID(), questionId: randomUUID(), replyId: randomUUID() };
  await queryDatabase(
    deployment.environment.databaseUrl,
    `INSERT INTO threads (id, org_id, user_id, agent_id, name, archived_at) VALUES ($1, $2, $3, $4, 'n', $5)`,
    [seeded.threadId, deployment.org.orgId, userId, deployment.agentId, archived ? new Date() : null],
  );
  await queryDatabase(
    deployment.environment.databaseUrl,
    `INSERT INTO messages (id, thread_id, org_id, position, role, content, status, live)
     VALUES ($1, $2, $3, 0, 'user', 'Hello there', 'success', false),
            ($4, $2, $3, 1, 'assistant', '', 'pending', true)`,
    [seeded.questionId, seeded.threadId, deployment.org.orgId, seeded.replyId],
  );
  await queryDatabase(deployment.environment.databaseUrl, 'UPDATE messages SET agent_id = $1 WHERE id = $2', [
    deployment.agentId,
    seeded.replyId,
  ]);
  return seeded;
}

function replyEvents(seeded: Seeded, words: number): RunEvent[] {
  const events: RunEvent[] = [
    { seq: 0, type: 'message.started', message_id: seeded.replyId, thread_id: seeded.threadId },
    { seq: 1, type: 'step.started', step: 1 },
  ];
  for (let i = 0; i < words; i += 1) events.push({ seq: events.length, type: 'text.delta', delta: `w${i} ` });
  const content = events.map((event) => (event.type === 'text.delta' ? event.delta : '')).join('');
  events.push({ seq: events.length, type: 'message.completed', message: finalMessage(seeded, content) });
  return events;
}

/** The worker's write: XADD with the seq's entry id, EXPIRE, PUBLISH of the same line. */
async function write(messageId: string, event: RunEvent): Promise<void> {
  const { stream, channel } = runEventKeys(deployment.environment.redisPrefix, messageId);
  const line = encodeEvent(event);
  await deployment.redis.xadd(stream, streamEntryId(event.seq), EVENT_FIELD, line);
  await deployment.redis.expire(stream, 3600);
  await deployment.redis.publish(channel, line);
}

async function subscribers(messageId: string): Promise<number> {
  const [, count] = (await deployment.redis.pubsub(
    'NUMSUB',
    runEventKeys(deployment.environment.redisPrefix, messageId).channel,
  )) as [string, number];
  return Number(count);
}

const streamUrl = (base: string, messageId: string, query = '') =>
  `${base}/chat/messages/${messageId}/stream${query}`;

describe('GET /chat/messages/{message_id}/stream (relay)', () => {
  it('answers 422 for a message id that is not a UUID and for a bad `after`', async () => {
    const client = deployment.client();
    const badId = await client.get('/chat/messages/nope/stream');
    expect(badId.status).toBe(422);
    expect(badId.body.detail[0]).toMatchObject({ loc: ['path', 'message_id'], type: 'uuid_parsing' });
    const { replyId } = await seedThread();
    const below = await client.get(`/chat/messages/${replyId}/stream?after=-2`);
    expect(below.status).toBe(422);
    expect(below.body.detail[0]).toMatchObject({ loc: ['query', 'after'], type: 'greater_than_equal' });
    const text = await client.get(`/chat/messages/${replyId}/stream?after=abc`);
    expect(text.status).toBe(422);
    expect(text.body.detail[0]).toMatchObject({ loc: ['query', 'after'], type: 'int_parsing', input: 'abc' });
  });

  it('answers 404 for another organization, another end user, an archived thread or no such message', async () => {
    const seeded = await seedThread('owner');
    const archived = await seedThread('owner', true);
    const cases = [
      { token: other.key, path: `/chat/messages/${seeded.replyId}/stream` },
      { token: deployment.org.key, path: `/chat/messages/${seeded.replyId}/stream?user_id=someone-else` },
      { token: deployment.org.key, path: `/chat/messages/${archived.replyId}/stream` },
      { token: deployment.org.key, path: `/chat/messages/${randomUUID()}/stream` },
    ];
    for (const { token, path } of cases) {
      const response = await deployment.client(token).get(path);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Message not found' });
    }
    const allowed = new OpenStream(
      streamUrl(deployment.url, seeded.questionId, '?user_id=owner'),
      deployment.org.key,
    );
    expect(await allowed.all()).toHaveLength(1);
    expect(allowed.status).toBe(200);
  });

  it('streams a user message as its single message.completed line', async () => {
    const { questionId, threadId } = await seedThread();
    const stream = new OpenStream(streamUrl(deployment.url, questionId), deployment.org.key);
    expect(await stream.ended).toBe(true);
    expect(stream.contentType).toBe('application/jsonl');
    expect(stream.lines).toEqual([
      {
        seq: 0,
        type: 'message.completed',
        message: expect.objectContaining({
          id: questionId,
          thread_id: threadId,
          role: 'user',
          content: 'Hello there',
          status: 'success',
          live: false,
          events: null,
          agent: null,
        }),
      },
    ]);
  });

  it('writes heartbeats while the reply is pending, then follows it live to the end', async () => {
    const seeded = await seedThread();
    const stream = new OpenStream(streamUrl(deployment.url, seeded.replyId), deployment.org.key);
    await stream.waitFor((line) => line.type === 'heartbeat');
    const events = replyEvents(seeded, 5);
    for (const event of events) await write(seeded.replyId, event);
    expect(await stream.ended).toBe(true);
    expect(numbered(stream.lines)).toEqual(events);
    expect(stream.lines.find((line) => line.type === 'heartbeat')).toEqual({ type: 'heartbeat' });
    await until(async () => (await subscribers(seeded.replyId)) === 0);
  });

  it('serves one reply from any replica, late readers and `after` included', async () => {
    const seeded = await seedThread();
    const events = replyEvents(seeded, 30);
    const onGateway = new OpenStream(streamUrl(deployment.url, seeded.replyId), deployment.org.key);
    const onReplica = new OpenStream(
      streamUrl(deployment.gateways[1].url!, seeded.replyId),
      deployment.org.key,
    );
    await until(async () => (await subscribers(seeded.replyId)) === 2);
    for (const event of events.slice(0, 15)) await write(seeded.replyId, event);
    const late = new OpenStream(streamUrl(deployment.gateways[1].url!, seeded.replyId), deployment.org.key);
    const after = new OpenStream(streamUrl(deployment.url, seeded.replyId, '?after=10'), deployment.org.key);
    for (const event of events.slice(15)) await write(seeded.replyId, event);
    for (const stream of [onGateway, onReplica, late]) expect(numbered(await stream.all())).toEqual(events);
    expect(numbered(await after.all())).toEqual(events.slice(11));
  });

  it('resumes with `after` on a new gateway when the one serving the stream dies', async () => {
    const seeded = await seedThread();
    const events = replyEvents(seeded, 40);
    const doomed = await startGateway(deployment.environment.env);
    try {
      const first = new OpenStream(streamUrl(doomed.url!, seeded.replyId), deployment.org.key);
      for (const event of events.slice(0, 20)) await write(seeded.replyId, event);
      await first.waitFor((line) => line.seq === 19);
      await doomed.kill();
      expect(await first.ended).toBe(false);
      for (const event of events.slice(20, 30)) await write(seeded.replyId, event);
      const last = numbered(first.lines).at(-1)!.seq!;
      const resumed = new OpenStream(
        streamUrl(deployment.url, seeded.replyId, `?after=${last}`),
        deployment.org.key,
      );
      for (const event of events.slice(30)) await write(seeded.replyId, event);
      expect([...numbered(first.lines), ...numbered(await resumed.all())]).toEqual(events);
    } finally {
      await doomed.stop();
    }
  });

  it('ends its open streams when it stops gracefully, and the client resumes on another replica', async () => {
    const seeded = await seedThread();
    const events = replyEvents(seeded, 10);
    const stopping = await startGateway(deployment.environment.env);
    try {
      const first = new OpenStream(streamUrl(stopping.url!, seeded.replyId), deployment.org.key);
      for (const event of events.slice(0, 5)) await write(seeded.replyId, event);
      await first.waitFor((line) => line.seq === 4);
      const started = Date.now();
      expect(await stopping.stop()).toBe(0);
      expect(Date.now() - started).toBeLessThan(5000);
      // A clean end of the response, without message.completed: the client knows to resume.
      expect(await first.ended).toBe(true);
      expect(numbered(first.lines)).toEqual(events.slice(0, 5));
      const resumed = new OpenStream(
        streamUrl(deployment.gateways[1].url!, seeded.replyId, '?after=4'),
        deployment.org.key,
      );
      for (const event of events.slice(5)) await write(seeded.replyId, event);
      expect(numbered(await resumed.all())).toEqual(events.slice(5));
    } finally {
      await stopping.stop();
    }
  });

  it('releases the subscription when the client hangs up', async () => {
    const seeded = await seedThread();
    const streams = [1, 2, 3].map(
      () => new OpenStream(streamUrl(deployment.url, seeded.replyId), deployment.org.key),
    );
    await until(async () => (await subscribers(seeded.replyId)) === 1);
    await write(seeded.replyId, replyEvents(seeded, 0)[0]);
    await Promise.all(streams.map((stream) => stream.waitFor((line) => line.seq === 0)));
    for (const stream of streams) stream.close();
    await until(async () => (await subscribers(seeded.replyId)) === 0);
  });

  it('cuts off a client that does not read instead of buffering for it, and keeps serving the others', async () => {
    const seeded = await seedThread();
    const path = `/chat/messages/${seeded.replyId}/stream`;
    const slow = await stalledClient(deployment.url, path, deployment.org.key);
    const fast = new OpenStream(streamUrl(deployment.gateways[1].url!, seeded.replyId), deployment.org.key);
    await until(async () => (await subscribers(seeded.replyId)) === 2);
    const big = 'x'.repeat(64 * 1024);
    // 30 MiB: more than the kernel's socket buffers and the gateway's 1 MiB bound together.
    for (let seq = 0; seq < 480; seq += 1)
      await write(seeded.replyId, { seq, type: 'text.delta', delta: big });
    await until(async () => (await subscribers(seeded.replyId)) === 1, 20000);
    expect(slow.destroyed).toBe(false);
    // The final content would repeat the 30 MiB in one line; what this test follows is the deltas.
    await write(seeded.replyId, { seq: 480, type: 'message.completed', message: finalMessage(seeded, '') });
    expect(numbered(await fast.all())).toHaveLength(481);
    slow.destroy();
    await sleep(10);
  });
});
