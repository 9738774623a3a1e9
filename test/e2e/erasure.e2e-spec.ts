import { createHash, randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { QUEUE } from '@app/contracts';
import { RETENTION_JOB } from '@app/queues';
import { createOrg } from '../factories/admin';
import { FakeGoogleDrive } from '../support/fake-google-drive';
import { api } from '../support/http';
import { postUpload } from '../support/uploads';
import { startWorker } from '../support/processes';
import { columnsContaining } from '../support/schema-search';
import { untilShowing } from '../support/poll';
import { queryDatabase } from '../support/test-environment';
import { WebhookReceiver } from '../support/webhook-receiver';
import { budgetRoutineAndSource, useErasureDeployment } from './erasure.support';

/**
 * Erasure, export and retention on real processes (CONTRACTS §20): an end user with threads, a tool reply, a live
 * reply, files and a share link, a routine, a connection with a synced source, feedback and a budget is erased
 * for good (every id 404, the bytes gone, the id in no column of any table) while another user of the same
 * organization keeps everything; a worker killed mid-erasure leaves it to another; the export holds every
 * message; retention erases old threads only.
 */
let agentId: string;
const drive = new FakeGoogleDrive();
const receiver = new WebhookReceiver();
const events = receiver.delivered;

const suffix = randomBytes(4).toString('hex');
const ERASED = `erased-user-${suffix}`;
const KEPT = `kept-user-${suffix}`;

const deployment = useErasureDeployment(drive, receiver, 'parley-erasure-e2e-', {
  WEBHOOK_SWEEP_INTERVAL_MS: '200',
  SOURCE_SYNC_INTERVAL_SECONDS: '60',
});

beforeAll(async () => {
  agentId = (await client().post('/agents', { name: 'Keeper' })).body.id as string;
  expect((await client().post('/webhooks', { url: receiver.url, events: ['user.erased'] })).status).toBe(200);
}, 120000);

const client = () => api(deployment.gateway.url!, deployment.org.key);

const until = untilShowing(() => deployment.worker.output, { timeoutMs: 30000, intervalMs: 100, tail: 3000 });

/** A file of the user, uploaded through the storage host; answers its id. */
async function uploadedFile(userId: string): Promise<string> {
  const query = new URLSearchParams({ filename: 'notes.txt', mimetype: 'text/plain', user_id: userId });
  const permission = await client().get(`/chat/files/upload?${query.toString()}`);
  expect(permission.status).toBe(200);
  expect((await postUpload(permission.body, Buffer.from(`notes of ${userId}`), 'notes.txt')).status).toBe(
    204,
  );
  return permission.body.fields['x-amz-meta-file-id'];
}

interface Seeded {
  threadId: string;
  replyId: string;
  fileId: string;
  linkId: string;
  routineId: string;
  connectionId: string;
  sourcePid: string;
}

/** Everything of one end user the erasure must find. */
async function seed(userId: string): Promise<Seeded> {
  const fileId = await uploadedFile(userId);
  const link = await client().post(`/chat/files/${fileId}/share_links?user_id=${userId}`, {});
  expect(link.status).toBe(200);
  const started = await client().post('/chat', {
    message: { content: `/tool clock {}\nHello from ${userId}`, file_ids: [fileId] },
    options: { agent_id: agentId, user_id: userId },
  });
  expect(started.status).toBe(200);
  const threadId = started.body.id as string;
  const replyId = started.body.messages[1].id as string;
  await until(
    async () => (await client().get(`/chat/${threadId}?user_id=${userId}`)).body,
    (thread) => thread.messages[1].status === 'success',
  );
  expect(
    (await client().put(`/chat/messages/${replyId}/feedback`, { rating: 1, comment: userId })).status,
  ).toBe(200);
  const owned = await budgetRoutineAndSource(client(), agentId, userId);
  await until(
    async () => (await client().get(`/dc/sources/${owned.sourcePid}?user_id=${userId}`)).body,
    (s) => s.status === 'synced' && s.documents_synced === 1,
  );
  return { threadId, replyId, fileId, linkId: link.body.id, ...owned };
}

/** Every read of the user's things: their statuses, in order. */
async function statuses(userId: string, seeded: Seeded): Promise<number[]> {
  const share = await fetch(`${deployment.gateway.url}/share/${seeded.linkId}`);
  return [
    (await client().get(`/chat/${seeded.threadId}`)).status,
    (await client().get(`/chat/${seeded.threadId}?user_id=${userId}`)).status,
    (await client().get(`/chat/messages/${seeded.replyId}/stream?user_id=${userId}`)).status,
    (await client().get(`/chat/files/${seeded.fileId}?user_id=${userId}`)).status,
    share.status,
    (await client().get(`/routines/${seeded.routineId}?user_id=${userId}`)).status,
    (await client().get(`/dc/connections/${seeded.connectionId}?user_id=${userId}`)).status,
    (await client().get(`/dc/sources/${seeded.sourcePid}?user_id=${userId}`)).status,
    (await client().get(`/budgets/users/${userId}`)).status,
    (await client().put(`/chat/messages/${seeded.replyId}/feedback`, { rating: -1 })).status,
  ];
}

const erasureOf = async (erasureId: string) => (await client().get(`/erasures/${erasureId}`)).body;

let kept: Seeded;

it('erases everything of an end user, and nothing of another user of the organization', async () => {
  const erased = await seed(ERASED);
  kept = await seed(KEPT);
  // A reply still running when the erasure comes: cancelled first.
  const live = await client().post('/chat', {
    message: { content: '/loop' },
    options: { agent_id: agentId, user_id: ERASED, max_steps: 10000 },
  });
  await until(
    async () => (await client().get(`/chat/${live.body.id}?user_id=${ERASED}`)).body,
    (thread) => thread.messages[1].status === 'running',
  );
  const liveReplyId = live.body.messages[1].id as string;

  const requested = await client().delete(`/users/${ERASED}`);
  expect(requested.status).toBe(202);
  const erasureId = requested.body.erasure_id as string;
  const done = await until(
    () => erasureOf(erasureId),
    (erasure) => erasure.status === 'done',
  );
  expect(done).toMatchObject({
    erasure_id: erasureId,
    user_hash: createHash('sha256')
      .update(`parley.end-user.v1\n${deployment.org.orgId}\n${ERASED}`)
      .digest('hex'),
    counts: {
      threads: 2,
      files: 1,
      share_links: 1,
      routines: 1,
      sources: 1,
      documents: 1,
      connections: 1,
      feedback: 1,
      budgets: 1,
    },
  });
  expect(done.counts.messages).toBeGreaterThanOrEqual(4);
  expect(Date.parse(done.completed_at)).not.toBeNaN();

  expect(await statuses(ERASED, erased)).toEqual([404, 404, 404, 404, 404, 404, 404, 404, 404, 404]);
  expect((await client().get(`/chat/messages/${liveReplyId}/stream?user_id=${ERASED}`)).status).toBe(404);
  await expect(
    stat(join(deployment.storageDir, 'uploads', deployment.org.orgId, erased.fileId)),
  ).rejects.toThrow();
  expect(await columnsContaining(deployment.environment.databaseUrl, ERASED)).toEqual([]);
  expect(await deployment.redis.keys(`${deployment.environment.redisPrefix}:*${erased.replyId}*`)).toEqual(
    [],
  );
  expect(await deployment.redis.keys(`${deployment.environment.redisPrefix}:*${liveReplyId}*`)).toEqual([]);

  // The other user keeps everything, and the walk does find what is there.
  expect(await statuses(KEPT, kept)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200]);
  await stat(join(deployment.storageDir, 'uploads', deployment.org.orgId, kept.fileId));
  expect(await columnsContaining(deployment.environment.databaseUrl, KEPT)).toEqual(
    expect.arrayContaining([
      'threads.user_id',
      'conversation_files.user_id',
      'routines.user_id',
      'user_budgets.user_id',
    ]),
  );

  await until(
    async () => events,
    (received) => received.some((event) => event.type === 'user.erased'),
  );
  const told = events.find((event) => event.type === 'user.erased')!;
  expect(told.data).toMatchObject({ erasure_id: erasureId, user_hash: done.user_hash, counts: done.counts });
  expect(JSON.stringify(told)).not.toContain(ERASED);

  // The audit log has the request and the end, by the key that asked, naming the user by the receipt's hash only.
  const audit = (await client().get('/audit-events?limit=100')).body as {
    action: string;
    actor: { type: string };
    target: { type: string; id: string };
  }[];
  expect(audit.find((entry) => entry.action === 'erasure.requested')).toMatchObject({
    actor: { type: 'key' },
    target: { type: 'end_user', id: done.user_hash },
  });
  expect(audit.find((entry) => entry.action === 'user.erased')).toMatchObject({
    actor: { type: 'key' },
    target: { type: 'erasure', id: erasureId },
  });
  expect(JSON.stringify(audit)).not.toContain(ERASED);

  // Again, once done: a new erasure that finds nothing.
  const again = await client().delete(`/users/${ERASED}`);
  expect(again.status).toBe(202);
  expect(again.body.erasure_id).not.toBe(erasureId);
  expect(
    await until(
      () => erasureOf(again.body.erasure_id),
      (erasure) => erasure.status === 'done',
    ),
  ).toMatchObject({
    counts: {},
  });
  expect(
    (
      await api(deployment.gateway.url!, (await createOrg(deployment.environment.env)).key).get(
        `/erasures/${erasureId}`,
      )
    ).status,
  ).toBe(404);
}, 180000);

it('exports a line for every message of the end user, and their files, routine, feedback, budget, connection', async () => {
  const thread = (await client().get(`/chat/${kept.threadId}?user_id=${KEPT}`)).body;
  const response = await fetch(`${deployment.gateway.url}/users/${KEPT}/export`, {
    headers: { 'x-service-token': deployment.org.key },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/x-ndjson');
  const lines = (await response.text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { kind: string; data: Record<string, unknown> });
  const of = (kind: string) => lines.filter((line) => line.kind === kind).map((line) => line.data);
  expect(of('thread').map((t) => t.id)).toEqual([kept.threadId]);
  expect(of('message')).toEqual(thread.messages.map((m: Record<string, unknown>) => ({ ...m, files: [] })));
  const [file] = of('file');
  expect(file).toMatchObject({
    id: kept.fileId,
    share_links: [expect.objectContaining({ id: kept.linkId })],
  });
  expect(await (await fetch(file.url as string)).text()).toBe(`notes of ${KEPT}`);
  expect(of('routine').map((r) => r.id)).toEqual([kept.routineId]);
  expect(of('feedback')).toEqual([expect.objectContaining({ message_id: kept.replyId, user_id: KEPT })]);
  expect(of('budget')).toEqual([expect.objectContaining({ user_id: KEPT, max_tokens: 100000 })]);
  expect(of('connection').map((c) => c.id)).toEqual([kept.connectionId]);
  const empty = await fetch(`${deployment.gateway.url}/users/nobody-${suffix}/export`, {
    headers: { 'x-service-token': deployment.org.key },
  });
  expect(await empty.text()).toBe('');
});

it('finishes an erasure whose worker is killed in the middle, counting every row once', async () => {
  const userId = `bulk-user-${suffix}`;
  const threads = 40;
  const perThread = 500;
  await queryDatabase(
    deployment.environment.databaseUrl,
    `WITH t AS (
       INSERT INTO threads (id, org_id, user_id, agent_id, name)
       SELECT gen_random_uuid(), $1, $2, $3, 'bulk ' || n FROM generate_series(1, $4) n RETURNING id)
     INSERT INTO messages (id, thread_id, org_id, position, role, content, status, live)
     SELECT gen_random_uuid(), t.id, $1, p, CASE WHEN p % 2 = 0 THEN 'user' ELSE 'assistant' END,
       'message ' || p || ' of ' || $2, 'success', false
     FROM t, generate_series(0, $5 - 1) p`,
    [deployment.org.orgId, userId, agentId, threads, perThread],
  );
  const erasureId = (await client().delete(`/users/${userId}`)).body.erasure_id as string;
  await until(
    () => erasureOf(erasureId),
    (erasure) => (erasure.counts.messages ?? 0) > 0,
    60000,
  );
  await deployment.worker.kill();
  expect((await erasureOf(erasureId)).status).toBe('running');
  deployment.worker = await startWorker(deployment.environment.env, { WEBHOOK_SWEEP_INTERVAL_MS: '200' });
  const done = await until(
    () => erasureOf(erasureId),
    (erasure) => erasure.status === 'done',
    120000,
  );
  expect(done.counts).toMatchObject({ threads, messages: threads * perThread });
  expect(await columnsContaining(deployment.environment.databaseUrl, userId)).toEqual([]);
}, 240000);

describe('retention', () => {
  it('refuses a bad setting with the 422 shape, and shows the setting', async () => {
    for (const body of [{ thread_days: 0 }, { thread_days: 'ten' }, { thread_days: 1.5 }, {}]) {
      const response = await client().put('/settings/retention', body);
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body', 'thread_days']);
    }
    expect((await client().get('/settings/retention')).body).toEqual({ thread_days: null });
    expect((await client().put('/settings/retention', { thread_days: 30 })).body).toEqual({
      thread_days: 30,
    });
    expect((await client().get('/settings/retention')).body).toEqual({ thread_days: 30 });
    const [latest] = (await client().get('/audit-events?limit=1')).body;
    expect(latest).toMatchObject({ action: 'retention.updated', details: { thread_days: 30 } });
  });

  it('erases the threads whose newest message is older than the setting, and only those', async () => {
    const start = async (content: string) =>
      (
        await client().post('/chat', {
          message: { content: `/say ${content}` },
          options: { agent_id: agentId, user_id: KEPT },
        })
      ).body;
    const old = await start('old');
    const recent = await start('recent');
    for (const thread of [old, recent]) {
      await until(
        async () => (await client().get(`/chat/${thread.id}`)).body,
        (t) => t.messages[1].status === 'success',
      );
    }
    await queryDatabase(
      deployment.environment.databaseUrl,
      `UPDATE messages SET created_at = now() - interval '31 days' WHERE thread_id = $1`,
      [old.id],
    );
    await queryDatabase(
      deployment.environment.databaseUrl,
      `UPDATE threads SET created_at = now() - interval '40 days' WHERE id = ANY ($1)`,
      [[old.id, recent.id, kept.threadId]],
    );
    const queue = new Queue(QUEUE.erasure, {
      connection: deployment.redis,
      prefix: deployment.environment.redisPrefix,
    });
    try {
      await queue.add(RETENTION_JOB, {});
      await until(
        async () => (await client().get(`/chat/${old.id}`)).status,
        (status) => status === 404,
      );
    } finally {
      await queue.close();
    }
    expect((await client().get(`/chat/${recent.id}`)).status).toBe(200);
    expect((await client().get(`/chat/${kept.threadId}`)).status).toBe(200);
    const gone = await queryDatabase(
      deployment.environment.databaseUrl,
      `SELECT id FROM messages WHERE thread_id = $1`,
      [old.id],
    );
    expect(gone).toEqual([]);
    expect((await client().put('/settings/retention', { thread_days: null })).body).toEqual({
      thread_days: null,
    });
  });
});
