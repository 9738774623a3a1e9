import { Redis } from 'ioredis';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { FakeGoogleDrive } from '../support/fake-google-drive';
import { api } from '../support/http';
import { untilShowing } from '../support/poll';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';
import { startAiSdkChat, stopAiSdkChat } from './ai-sdk-chat.support';
import { startThread } from './replies.support';

/**
 * Webhooks on real processes (CONTRACTS §14): a local receiver gets the end of a reply, signed so that the
 * `standardwebhooks` library verifies it; failures are retried on schedule, every try recorded; a worker killed
 * between tries (and its Redis keys gone) loses no delivery.
 */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local endpoint that answers the statuses it is told, in order (then 200), and keeps what it got. */
class Receiver {
  readonly received: Received[] = [];
  statuses: number[] = [];
  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.statusCode = this.statuses.shift() ?? 200;
      response.end('ok');
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const USER = 'user-1';
const RETRY_BASE_MS = 400;
const workerEnv = {
  WORKER_HEALTH_PORT: '0',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_SWEEP_INTERVAL_MS: '200',
  WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
  WEBHOOK_LEASE_MS: '3000',
};

let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess;
let org: OrgFixture;
let other: OrgFixture;
let agentId: string;
let client: ReturnType<typeof api>;
const receivers: Receiver[] = [];
const webhookIds: string[] = [];
const drive = new FakeGoogleDrive();

beforeAll(async () => {
  await drive.start();
  environment = await createTestEnvironment({
    GOOGLE_DRIVE_API_URL: drive.url,
    GOOGLE_TOKEN_URL: drive.tokenUrl,
  });
  [gateway, worker] = await Promise.all([
    startGateway(environment.env, { WEBHOOK_ALLOW_PRIVATE: 'true' }),
    startWorker(environment.env, workerEnv),
  ]);
  [org, other] = await Promise.all([createOrg(environment.env), createOrg(environment.env)]);
  agentId = (await createAgent(environment.env, org.org)).id;
  client = api(gateway.url!, org.key);
});

afterAll(async () => {
  await Promise.all([
    gateway?.stop(),
    worker?.stop(),
    drive.stop(),
    ...receivers.map((receiver) => receiver.stop()),
  ]);
  await environment?.dispose();
});

/** A receiver registered for `events`; only it listens while a test runs (the others are paused). */
async function register(events: string[] = ['message.completed']) {
  for (const id of webhookIds) await client.put(`/webhooks/${id}`, { active: false });
  const receiver = new Receiver();
  receivers.push(receiver);
  const response = await client.post('/webhooks', { url: await receiver.start(), events });
  expect(response.status).toBe(200);
  webhookIds.push(response.body.id);
  return { receiver, webhook: response.body as { id: string; secret: string } };
}

const reply = (content: string) => startThread(client, agentId, USER, content);

/** Polls until a value shows; failing, with the tail of the worker's log. */
const until = untilShowing(() => worker?.output, { timeoutMs: 20000, intervalMs: 100, tail: 3000 });

interface Attempt {
  id: string;
  event_id: string;
  type: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  created_at: string;
  next_attempt_at: string | null;
  delivered_at: string | null;
}

const attempts = async (webhookId: string): Promise<Attempt[]> =>
  (await client.get(`/webhooks/${webhookId}/deliveries`)).body;

describe('webhooks', () => {
  it('creates a webhook, shows its secret once, and keeps it to its organization', async () => {
    const receiver = new Receiver();
    receivers.push(receiver);
    const created = await client.post('/webhooks', {
      url: await receiver.start(),
      events: ['message.failed', 'source.synced'],
      description: 'ops',
      active: false,
    });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(
      ['active', 'created_at', 'description', 'events', 'id', 'secret', 'url'].sort(),
    );
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await client.get(`/webhooks/${created.body.id}`);
    expect(read.body).toEqual({ ...created.body, secret: undefined });
    expect(read.body).not.toHaveProperty('secret');
    const [row] = await queryDatabase<{ secret_encrypted: string }>(
      environment.databaseUrl,
      'SELECT secret_encrypted FROM webhooks WHERE id = $1',
      [created.body.id],
    );
    expect(row.secret_encrypted).not.toContain(created.body.secret.slice(6));

    const foreign = api(gateway.url!, other.key);
    expect((await foreign.get(`/webhooks/${created.body.id}`)).status).toBe(404);
    expect((await foreign.get('/webhooks')).body).toEqual([]);
    const updated = await client.put(`/webhooks/${created.body.id}`, { events: ['message.cancelled'] });
    expect(updated.body).toMatchObject({ events: ['message.cancelled'], active: false, description: 'ops' });
    expect((await client.delete(`/webhooks/${created.body.id}`)).status).toBe(204);
    expect((await client.get(`/webhooks/${created.body.id}`)).status).toBe(404);
  });

  it('answers 422 for an unknown event type and a URL that is not http(s)', async () => {
    const response = await client.post('/webhooks', {
      url: 'ftp://example.com/x',
      events: ['message.exploded'],
    });
    expect(response.status).toBe(422);
    const locs = (response.body.detail as { loc: unknown[] }[]).map((issue) => issue.loc[1]);
    expect(locs).toEqual(['events']);
    const badUrl = await client.post('/webhooks', {
      url: 'ftp://example.com/x',
      events: ['message.completed'],
    });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'value_error' });
  });

  it('delivers message.completed with a signature the standardwebhooks library verifies', async () => {
    const { receiver, webhook } = await register();
    const { threadId, replyId } = await reply('/say all done here');
    const [received] = await until(
      async () => receiver.received,
      (got) => got.length > 0,
    );
    const payload = new Webhook(webhook.secret).verify(received.body, {
      'webhook-id': received.headers['webhook-id'] as string,
      'webhook-timestamp': received.headers['webhook-timestamp'] as string,
      'webhook-signature': received.headers['webhook-signature'] as string,
    }) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(payload.type).toBe('message.completed');
    expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(payload.data).toMatchObject({
      id: replyId,
      thread_id: threadId,
      role: 'assistant',
      status: 'success',
      content: 'all done here',
      live: false,
    });
    const thread = await client.get(`/chat/${threadId}?user_id=${USER}`);
    expect(payload.data).toEqual(thread.body.messages[1]);
    // A forged body does not verify with the same headers.
    expect(() =>
      new Webhook(webhook.secret).verify(received.body.replace('all done', 'all gone'), {
        'webhook-id': received.headers['webhook-id'] as string,
        'webhook-timestamp': received.headers['webhook-timestamp'] as string,
        'webhook-signature': received.headers['webhook-signature'] as string,
      }),
    ).toThrow();

    const recorded = await until(
      () => attempts(webhook.id),
      (list) => list.length === 1,
    );
    expect(recorded[0]).toMatchObject({
      event_id: received.headers['webhook-id'],
      type: 'message.completed',
      attempt: 1,
      status_code: 200,
      error: null,
      next_attempt_at: null,
    });
    expect(recorded[0].delivered_at).toEqual(expect.any(String));
  });

  it('retries a receiver that answers 500 twice, and records three attempts', async () => {
    const { receiver, webhook } = await register(['message.failed']);
    receiver.statuses = [500, 500];
    await reply('/fail');
    const recorded = await until(
      () => attempts(webhook.id),
      (list) => list.some((attempt) => attempt.delivered_at !== null),
    );
    expect(recorded.map((attempt) => [attempt.attempt, attempt.status_code])).toEqual([
      [3, 200],
      [2, 500],
      [1, 500],
    ]);
    expect(new Set(recorded.map((attempt) => attempt.event_id)).size).toBe(1);
    expect(receiver.received.map((got) => got.headers['webhook-id'])).toEqual(
      Array(3).fill(recorded[0].event_id),
    );
    expect(recorded[2].error).toBe('HTTP 500');
    // Backoff: the worker schedules the next try the base delay after the first failure and twice it after the
    // second (both on its clock), and no try goes out before its time. A try's row is stamped by PostgreSQL after
    // the failure it records, so the first delay is at most the base delay counted from that stamp.
    const [third, second, first] = recorded.map((attempt) => new Date(attempt.created_at).getTime());
    const [afterSecond, afterFirst] = [recorded[1], recorded[2]].map((attempt) =>
      new Date(attempt.next_attempt_at!).getTime(),
    );
    expect(afterFirst - first).toBeLessThanOrEqual(RETRY_BASE_MS);
    expect(afterSecond - afterFirst).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS);
    expect(second).toBeGreaterThanOrEqual(afterFirst);
    expect(third).toBeGreaterThanOrEqual(afterSecond);
  });

  it('tells message.cancelled for a running reply and one that never started when the thread is archived', async () => {
    const { receiver } = await register(['message.cancelled']);
    const { threadId, replyId: running } = await reply('/sleep 3000\n/say too late');
    const followUp = await client.post(`/chat/${threadId}?user_id=${USER}`, {
      message: { content: '/say next' },
    });
    expect(followUp.status).toBe(200);
    const pending = followUp.body.id as string;
    expect((await client.delete(`/chat/${threadId}?user_id=${USER}`)).status).toBe(204);
    const received = await until(
      async () =>
        receiver.received.map(
          (got) => JSON.parse(got.body) as { type: string; data: Record<string, unknown> },
        ),
      (got) => got.length >= 2,
    );
    expect(received.map((event) => event.type)).toEqual(['message.cancelled', 'message.cancelled']);
    expect(received.map((event) => event.data.id).sort()).toEqual([running, pending].sort());
    expect(received.find((event) => event.data.id === pending)!.data).toMatchObject({
      thread_id: threadId,
      status: 'cancelled',
      live: false,
      content: '',
      agent: { id: agentId },
    });
  });

  it("tells message.cancelled for a reply waiting for a person that the AI SDK's stop ends", async () => {
    const { receiver } = await register(['message.cancelled']);
    const careful = await client.post('/agents', { name: 'Careful', approval_required: ['clock'] });
    expect(careful.status).toBe(200);
    const chat = await startAiSdkChat(gateway.url!, client, USER, careful.body.id, '/tool clock {}');
    const replyId = chat.replyId;
    await until(
      async () =>
        (
          await queryDatabase<{ status: string }>(
            environment.databaseUrl,
            'SELECT status FROM messages WHERE id = $1',
            [replyId],
          )
        )[0].status,
      (status) => status === 'requires_action',
    );

    const stopped = await stopAiSdkChat(gateway.url!, chat);
    expect(stopped.status).toBe(204);
    const received = await until(
      async () =>
        receiver.received.map((got) => JSON.parse(got.body) as { type: string; data: { id: string } }),
      (got) => got.some((event) => event.data.id === replyId),
    );
    expect(received.filter((event) => event.data.id === replyId)).toHaveLength(1);
    expect(received.find((event) => event.data.id === replyId)).toMatchObject({
      type: 'message.cancelled',
      data: { id: replyId, status: 'cancelled', live: false, agent: { id: careful.body.id } },
    });
  });

  it('tells source.synced and source.failed, with the Source as the API shows it', async () => {
    const { receiver, webhook } = await register(['source.synced', 'source.failed']);
    const verified = (received: Received) =>
      new Webhook(webhook.secret).verify(received.body, {
        'webhook-id': received.headers['webhook-id'] as string,
        'webhook-timestamp': received.headers['webhook-timestamp'] as string,
        'webhook-signature': received.headers['webhook-signature'] as string,
      }) as { type: string; data: Record<string, unknown> };
    const eventOf = async (type: string, pid: string) =>
      (
        await until(
          async () => receiver.received.map(verified),
          (got) => got.some((event) => event.type === type && event.data.pid === pid),
        )
      ).find((event) => event.type === type && event.data.pid === pid)!;
    drive.oauth.grant('drive-token');
    drive.addFile(
      drive.addFolder('root', 'Handbook', 'handbook'),
      'leave.txt',
      'text/plain',
      'Leave: 25 days.',
    );
    const connection = (
      await client.post(`/dc/connections?user_id=${USER}`, {
        name: 'Drive',
        kind: 'googledrive',
        credentials: { access_token: 'drive-token' },
      })
    ).body;
    const source = async (folderId: string) =>
      (
        await client.post(`/dc/sources?user_id=${USER}`, {
          connection_id: connection.id,
          store: 'googledrive',
          config: { folder_id: folderId, recursive: true },
          scope: 'private',
          name: `Folder ${folderId}`,
        })
      ).body as { pid: string };

    const handbook = await source('handbook');
    const synced = await eventOf('source.synced', handbook.pid);
    expect(synced.data).toMatchObject({ status: 'synced', documents_synced: 1 });
    // Written with the sync's end: the Source exactly as the API answers it afterwards.
    expect(synced.data).toEqual((await client.get(`/dc/sources/${handbook.pid}?user_id=${USER}`)).body);

    // The store refuses the next listing: that sync ends in error, and says so.
    drive.failBurst(/\/files/, [403]);
    const refused = await source('missing');
    const failed = await eventOf('source.failed', refused.pid);
    expect(failed.data).toMatchObject({ status: 'error', status_reason: expect.stringMatching(/\S/) });
  });

  it('loses no delivery when the worker is killed between attempts and its Redis keys are gone', async () => {
    const { receiver, webhook } = await register(['message.completed']);
    receiver.statuses = [503];
    await workerRestartsWith(async () => {
      await reply('/say after the crash');
      await until(
        () => attempts(webhook.id),
        (list) => list.length === 1,
      );
    });
    const recorded = await until(
      () => attempts(webhook.id),
      (list) => list.some((attempt) => attempt.delivered_at !== null),
      30000,
    );
    expect(recorded.map((attempt) => [attempt.attempt, attempt.status_code])).toEqual([
      [2, 200],
      [1, 503],
    ]);
  });
});

/** Runs `step`, then kills the worker, removes every Redis key of this run (queues included) and starts another. */
async function workerRestartsWith(step: () => Promise<void>): Promise<void> {
  await step();
  await worker.kill();
  const redis = new Redis(environment.env.REDIS_URL!);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${environment.redisPrefix}:*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  worker = await startWorker(environment.env, workerEnv);
}
