import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { QUEUE } from '@app/contracts';
import { RETENTION_JOB } from '@app/queues';
import { FakeGoogleDrive } from '../support/fake-google-drive';
import { api } from '../support/http';
import { postUpload } from '../support/uploads';
import { columnsContaining } from '../support/schema-search';
import { untilShowing } from '../support/poll';
import { queryDatabase } from '../support/test-environment';
import { WebhookReceiver } from '../support/webhook-receiver';
import { budgetRoutineAndSource, useErasureDeployment } from './erasure.support';

/**
 * Erasure leaves nothing and removes only that person (CONTRACTS §20, §21), on real processes: rows are found by
 * the user's id in a column, never by searching text (erasing the user `user` keeps everyone else's records); an
 * Idempotency-Key answers its own end user only; an upload permission from before an erasure stores nothing
 * after it; a reply running at the erasure leaves nothing in Redis; retention cancels a reply waiting for a person
 * before it erases its thread; and, after erasing a user who used every feature, no column of any table and no
 * Redis key or value under the deployment's prefix names them or their replies, while another user keeps all.
 */
let agentId: string;
let carefulAgentId: string;
const drive = new FakeGoogleDrive();
const receiver = new WebhookReceiver();
const delivered = receiver.delivered;

const suffix = randomBytes(4).toString('hex');
const HOOKED_EVENTS = [
  'message.completed',
  'message.failed',
  'message.cancelled',
  'message.requires_action',
  'message.feedback',
  'source.synced',
  'user.erased',
];

const deployment = useErasureDeployment(drive, receiver, 'parley-erasure-nothing-e2e-', {
  WEBHOOK_SWEEP_INTERVAL_MS: '200',
});

beforeAll(async () => {
  agentId = (await client().post('/agents', { name: 'Plain' })).body.id as string;
  carefulAgentId = (await client().post('/agents', { name: 'Careful', approval_required: ['clock'] })).body
    .id as string;
  expect((await client().post('/webhooks', { url: receiver.url, events: HOOKED_EVENTS })).status).toBe(200);
}, 120000);

const client = () => api(deployment.gateway.url!, deployment.org.key);

/** A client holding an end-user token, as a browser does. */
async function asEndUser(userId: string) {
  const minted = await client().post('/end-user-tokens', { user_id: userId });
  expect(minted.status).toBe(200);
  const browser = api(deployment.gateway.url!);
  const auth = { authorization: `Bearer ${minted.body.token as string}` };
  return {
    get: (path: string) => browser.get(path, auth),
    post: (path: string, body: unknown, headers: Record<string, string> = {}) =>
      browser.post(path, body, { ...auth, ...headers }),
  };
}

const until = untilShowing(() => deployment.worker.output, { timeoutMs: 30000, intervalMs: 100, tail: 3000 });

async function chat(
  userId: string,
  content: string,
  agent = agentId,
  headers: Record<string, string> = {},
  options: Record<string, unknown> = {},
) {
  const started = await client().post(
    '/chat',
    { message: { content }, options: { agent_id: agent, user_id: userId, ...options } },
    headers,
  );
  expect(started.status).toBe(200);
  return { threadId: started.body.id as string, replyId: started.body.messages[1].id as string };
}

const replyOf = async (threadId: string, userId: string) =>
  (await client().get(`/chat/${threadId}?user_id=${userId}`)).body.messages[1];

/** Erases the user and waits for the receipt to say done. */
async function erase(userId: string): Promise<Record<string, any>> {
  const requested = await client().delete(`/users/${encodeURIComponent(userId)}`);
  expect(requested.status).toBe(202);
  return until(
    async () => (await client().get(`/erasures/${requested.body.erasure_id}`)).body,
    (erasure) => erasure.status === 'done',
    60000,
  );
}

/** Every Redis key under the test's prefix whose name or value contains one of the needles, with the needle. */
async function redisNaming(needles: string[]): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await deployment.redis.scan(
      cursor,
      'MATCH',
      `${deployment.environment.redisPrefix}:*`,
      'COUNT',
      1000,
    );
    cursor = next;
    for (const key of keys) {
      const texts = [key, ...(await valuesOf(key))];
      for (const needle of needles)
        if (texts.some((text) => text.includes(needle))) found.push(`${key}: ${needle}`);
    }
  } while (cursor !== '0');
  return found;
}

async function valuesOf(key: string): Promise<string[]> {
  switch (await deployment.redis.type(key)) {
    case 'string':
      return [(await deployment.redis.get(key)) ?? ''];
    case 'hash':
      return Object.entries(await deployment.redis.hgetall(key)).flat();
    case 'list':
      return deployment.redis.lrange(key, 0, -1);
    case 'set':
      return deployment.redis.smembers(key);
    case 'zset':
      return deployment.redis.zrange(key, 0, -1);
    case 'stream':
      return (await deployment.redis.xrange(key, '-', '+')).flatMap(([id, fields]) => [id, ...fields]);
    default:
      return [];
  }
}

/** Every column of every table holding one of the needles (schema-search walks information_schema). */
async function columnsNaming(needles: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const needle of needles) {
    for (const column of await columnsContaining(deployment.environment.databaseUrl, needle))
      found.push(`${column}: ${needle}`);
  }
  return found;
}

describe('erasure removes only that person', () => {
  it('erasing the user `user` keeps the idempotency records and webhook deliveries of everyone else', async () => {
    const ann = `ann-${suffix}`;
    // Ann's recorded answer holds `"role": "user"`, and her reply's delivery the content "user".
    const key = `ann-key-${suffix}`;
    const { threadId, replyId } = await chat(ann, '/say user', agentId, { 'idempotency-key': key });
    await until(
      () => replyOf(threadId, ann),
      (reply) => reply.status === 'success',
    );
    await until(
      async () => delivered,
      (events) => events.some((event) => event.type === 'message.completed' && event.data.id === replyId),
    );
    const annRows = () =>
      Promise.all([
        queryDatabase(deployment.environment.databaseUrl, `SELECT 1 FROM idempotency_keys WHERE key = $1`, [
          key,
        ]),
        queryDatabase(
          deployment.environment.databaseUrl,
          `SELECT 1 FROM webhook_deliveries WHERE payload -> 'data' ->> 'id' = $1`,
          [replyId],
        ),
      ]);
    const [records, deliveries] = await annRows();
    expect([records.length, deliveries.length]).toEqual([1, 1]);

    const done = await erase('user');
    expect(done.counts).toEqual({});
    const [recordsAfter, deliveriesAfter] = await annRows();
    expect([recordsAfter.length, deliveriesAfter.length]).toEqual([1, 1]);
    const replayed = await client().post(
      '/chat',
      { message: { content: '/say user' }, options: { agent_id: agentId, user_id: ann } },
      { 'idempotency-key': key },
    );
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.id).toBe(threadId);
  });

  it("answers an Idempotency-Key to its own end user only: bob's token cannot replay alice's answer", async () => {
    const alice = await asEndUser(`alice-${suffix}`);
    const bob = await asEndUser(`bob-${suffix}`);
    const body = { message: { content: '/say private' }, options: { agent_id: agentId } };
    const key = `shared-key-${suffix}`;
    const hers = await alice.post('/chat', body, { 'idempotency-key': key });
    expect(hers.status).toBe(200);
    const his = await bob.post('/chat', body, { 'idempotency-key': key });
    expect(his.status).toBe(200);
    expect(his.headers.get('idempotent-replayed')).toBeNull();
    expect(his.body.id).not.toBe(hers.body.id);
    expect((await bob.get(`/chat/${his.body.id}`)).status).toBe(200);
    expect((await bob.get(`/chat/${hers.body.id}`)).status).toBe(404);
    // Her own retry still gets her answer.
    const again = await alice.post('/chat', body, { 'idempotency-key': key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(hers.body.id);
  });
});

describe('erasure leaves nothing', () => {
  it('refuses (404) the bytes of an upload permission issued before the erasure', async () => {
    const userId = `uploader-${suffix}`;
    const query = new URLSearchParams({ filename: 'late.txt', mimetype: 'text/plain', user_id: userId });
    const permission = await client().get(`/chat/files/upload?${query.toString()}`);
    expect(permission.status).toBe(200);
    await erase(userId);

    expect((await postUpload(permission.body, Buffer.from(`bytes of ${userId}`), 'late.txt')).status).toBe(
      404,
    );
    const fileId = permission.body.fields['x-amz-meta-file-id'] as string;
    await expect(
      stat(join(deployment.storageDir, 'uploads', deployment.org.orgId, fileId)),
    ).rejects.toThrow();
  });

  it('stops a running reply before deleting it, and nothing in Redis names it afterwards', async () => {
    const userId = `runner-${suffix}`;
    const { threadId, replyId } = await chat(userId, '/loop', agentId, {}, { max_steps: 10000 });
    await until(
      () => replyOf(threadId, userId),
      (reply) => reply.status === 'running',
    );
    await erase(userId);
    // Whatever the stopped run still did after the erasure (its job's end, a late claim of its log) is gone too.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await redisNaming([replyId, threadId, userId])).toEqual([]);
    expect(await columnsNaming([replyId, threadId, userId])).toEqual([]);
  });

  it('cancels a reply that waits for a person longer than thread_days before retention erases its thread', async () => {
    const userId = `waiter-${suffix}`;
    const { threadId, replyId } = await chat(userId, '/tool clock {}', carefulAgentId);
    await until(
      () => replyOf(threadId, userId),
      (reply) => reply.status === 'requires_action',
    );
    await queryDatabase(
      deployment.environment.databaseUrl,
      `UPDATE messages SET created_at = now() - interval '40 days' WHERE thread_id = $1`,
      [threadId],
    );
    await queryDatabase(
      deployment.environment.databaseUrl,
      `UPDATE threads SET created_at = now() - interval '40 days' WHERE id = $1`,
      [threadId],
    );
    expect((await client().put('/settings/retention', { thread_days: 30 })).status).toBe(200);
    const queue = new Queue(QUEUE.erasure, {
      connection: deployment.redis,
      prefix: deployment.environment.redisPrefix,
    });
    try {
      await queue.add(RETENTION_JOB, {});
      // First the cancel path: the reply ends cancelled and webhooks are told.
      const cancelled = await until(
        async () => delivered,
        (events) => events.some((event) => event.type === 'message.cancelled' && event.data.id === replyId),
      );
      const told = cancelled.find((event) => event.type === 'message.cancelled' && event.data.id === replyId);
      expect(told!.data).toMatchObject({
        id: replyId,
        status: 'cancelled',
      });
      // Then the thread goes (the next run; here at once).
      await queue.add(RETENTION_JOB, {});
      await until(
        () =>
          queryDatabase(deployment.environment.databaseUrl, `SELECT 1 FROM threads WHERE id = $1`, [
            threadId,
          ]),
        (rows) => rows.length === 0,
      );
    } finally {
      await queue.close();
      await client().put('/settings/retention', { thread_days: null });
    }
    expect(await columnsNaming([replyId, threadId])).toEqual([]);
    expect(await redisNaming([replyId, threadId])).toEqual([]);
  });
});

interface Footprint {
  userId: string;
  threadIds: string[];
  replyIds: string[];
  fileId: string;
  linkId: string;
  routineId: string;
  connectionId: string;
  sourcePid: string;
}

/** An end user who used every feature this test can drive; answers the ids that must vanish with them. */
async function everything(userId: string): Promise<Footprint> {
  const query = new URLSearchParams({ filename: 'notes.txt', mimetype: 'text/plain', user_id: userId });
  const permission = await client().get(`/chat/files/upload?${query.toString()}`);
  expect((await postUpload(permission.body, Buffer.from(`notes of ${userId}`), 'notes.txt')).status).toBe(
    204,
  );
  const fileId = permission.body.fields['x-amz-meta-file-id'] as string;
  const link = await client().post(`/chat/files/${fileId}/share_links?user_id=${userId}`, {});
  expect(link.status).toBe(200);

  // A thread with a tool reply and the file, started with an Idempotency-Key; a follow-up; feedback.
  const started = await client().post(
    '/chat',
    {
      message: { content: `/tool clock {}\nHello from ${userId}`, file_ids: [fileId] },
      options: { agent_id: agentId, user_id: userId },
    },
    { 'idempotency-key': `start-${userId}` },
  );
  expect(started.status).toBe(200);
  const threadId = started.body.id as string;
  const firstReply = started.body.messages[1].id as string;
  await until(
    () => replyOf(threadId, userId),
    (reply) => reply.status === 'success',
  );
  const followUp = await client().post(
    `/chat/${threadId}`,
    { message: { content: '/say again' }, options: { user_id: userId } },
    { 'idempotency-key': `follow-${userId}` },
  );
  expect(followUp.status).toBe(200);
  const secondReply = followUp.body.id as string;
  await until(
    async () => (await client().get(`/chat/${threadId}?user_id=${userId}`)).body.messages,
    (messages) => messages.every((message: { live: boolean }) => !message.live),
  );
  expect(
    (await client().put(`/chat/messages/${firstReply}/feedback`, { rating: 1, comment: userId })).status,
  ).toBe(200);

  // A reply that waited for a person and was approved; one through the user's own token.
  const careful = await chat(userId, '/tool clock {}', carefulAgentId);
  await until(
    () => replyOf(careful.threadId, userId),
    (reply) => reply.status === 'requires_action',
  );
  const [approval] = await queryDatabase<{ call_id: string }>(
    deployment.environment.databaseUrl,
    `SELECT call_id FROM tool_approvals WHERE message_id = $1`,
    [careful.replyId],
  );
  expect(
    (
      await client().post(`/chat/messages/${careful.replyId}/approvals`, {
        user_id: userId,
        call_id: approval.call_id,
        decision: 'approve',
      })
    ).status,
  ).toBe(200);
  await until(
    () => replyOf(careful.threadId, userId),
    (reply) => reply.status === 'success',
  );
  // A memory file the user's run wrote, in a namespace of their own (CONTRACTS §21).
  const remembered = await client().post('/chat', {
    message: {
      content: `/tool memory_write {"path": "notes/${userId}.md", "purpose": "notes", "content": "remember ${userId}"}`,
    },
    options: { agent_id: agentId, user_id: userId, memory_namespace: `ns-${userId}` },
  });
  expect(remembered.status).toBe(200);
  await until(
    () => replyOf(remembered.body.id, userId),
    (reply) => reply.status === 'success',
  );
  const browser = await asEndUser(userId);
  const own = await browser.post(
    '/chat',
    { message: { content: '/say from my browser' }, options: { agent_id: agentId } },
    { 'idempotency-key': `browser-${userId}` },
  );
  expect(own.status).toBe(200);
  await until(
    () => replyOf(own.body.id, userId),
    (reply) => reply.status === 'success',
  );

  const owned = await budgetRoutineAndSource(client(), agentId, userId, {
    'idempotency-key': `source-${userId}`,
  });
  await until(
    async () => (await client().get(`/dc/sources/${owned.sourcePid}?user_id=${userId}`)).body,
    (s) => s.status === 'synced',
  );
  // Every webhook event of these replies delivered (their rows stay in the outbox once settled).
  const replyIds = [firstReply, secondReply, careful.replyId, own.body.messages[1].id as string];
  await until(
    async () => delivered,
    (events) =>
      replyIds.every((id) =>
        events.some((event) => event.type === 'message.completed' && event.data.id === id),
      ),
  );
  return {
    userId,
    threadIds: [threadId, careful.threadId, own.body.id as string],
    replyIds,
    fileId,
    linkId: link.body.id as string,
    ...owned,
  };
}

const needlesOf = (footprint: Footprint) => [footprint.userId, ...footprint.threadIds, ...footprint.replyIds];

it('walks every table, Redis key and value after an erasure: nothing names the user or their replies', async () => {
  const erased = await everything(`walked-${suffix}`);
  const kept = await everything(`keeps-${suffix}`);
  // The walk does find a user's traces while they exist.
  expect((await columnsNaming(needlesOf(erased))).length).toBeGreaterThan(10);
  expect(await redisNaming(needlesOf(erased))).not.toEqual([]);

  const done = await erase(erased.userId);
  expect(done.counts).toMatchObject({ threads: 4, files: 1, share_links: 1, routines: 1, sources: 1 });
  expect(done.counts.idempotency_records).toBeGreaterThanOrEqual(4);
  expect(done.counts.webhook_deliveries).toBeGreaterThanOrEqual(5);
  await new Promise((resolve) => setTimeout(resolve, 1000));

  expect(await columnsNaming(needlesOf(erased))).toEqual([]);
  expect(await redisNaming(needlesOf(erased))).toEqual([]);
  await expect(
    stat(join(deployment.storageDir, 'uploads', deployment.org.orgId, erased.fileId)),
  ).rejects.toThrow();

  // The other user keeps everything.
  for (const threadId of kept.threadIds)
    expect((await client().get(`/chat/${threadId}?user_id=${kept.userId}`)).status).toBe(200);
  expect((await client().get(`/chat/files/${kept.fileId}?user_id=${kept.userId}`)).status).toBe(200);
  expect((await fetch(`${deployment.gateway.url}/share/${kept.linkId}`)).status).toBe(200);
  expect((await client().get(`/routines/${kept.routineId}?user_id=${kept.userId}`)).status).toBe(200);
  expect((await client().get(`/dc/sources/${kept.sourcePid}?user_id=${kept.userId}`)).status).toBe(200);
  expect(await columnsNaming([kept.userId])).toEqual(
    expect.arrayContaining([
      `threads.user_id: ${kept.userId}`,
      `idempotency_keys.user_id: ${kept.userId}`,
      `webhook_deliveries.end_user_ids: ${kept.userId}`,
      `message_feedback.user_id: ${kept.userId}`,
      `memory_files.written_by_user_ids: ${kept.userId}`,
    ]),
  );
}, 240000);
