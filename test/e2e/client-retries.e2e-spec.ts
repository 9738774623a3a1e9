import { createServer, IncomingMessage, request as httpRequest, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { ParleyApiError, ParleyClient } from '@app/client';
import { useDeployment } from '../support/deployment';

/**
 * The client library's writes are safe to retry: each call sends one Idempotency-Key on every attempt, retries
 * what the service could not take for now, and a retry after a lost answer stores nothing twice. A proxy in
 * front of a real gateway plays the faults.
 */

type Fault = 'unavailable' | 'lose-answer';

/** Forwards to the gateway, recording each request's method, path and Idempotency-Key; plays queued faults. */
class FaultyProxy {
  readonly seen: { method: string; path: string; key: string | undefined }[] = [];
  readonly faults: Fault[] = [];
  private server!: Server;
  url = '';

  constructor(private readonly target: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.seen.push({ method: req.method!, path: req.url!, key: req.headers['idempotency-key'] as string });
    const fault = req.method === 'POST' ? this.faults.shift() : undefined;
    if (fault === 'unavailable') {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ detail: 'Service unavailable' }));
      return;
    }
    const target = new URL(req.url!, this.target);
    const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
      if (fault === 'lose-answer') {
        // The gateway did the work; the client never hears of it.
        answer.resume();
        answer.on('end', () => res.socket?.destroy());
        return;
      }
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  }
}

const deployment = useDeployment({ agent: true });
let proxy: FaultyProxy;
let parley: ParleyClient;

beforeAll(async () => {
  proxy = new FaultyProxy(deployment.url);
  await proxy.start();
  parley = new ParleyClient({ baseUrl: proxy.url, token: deployment.org.key, retryBackoffMs: 10 });
});

afterAll(() => proxy?.stop());

beforeEach(() => {
  proxy.seen.length = 0;
  proxy.faults.length = 0;
});

const start = (userId: string) =>
  parley.startThread({
    message: { content: '/say hello' },
    options: { agent_id: deployment.agentId, user_id: userId },
  });

describe('writes of the client library', () => {
  it('sends an Idempotency-Key on every write, a new one per call', async () => {
    await start('keys');
    await start('keys');
    const keys = proxy.seen.filter((r) => r.method === 'POST').map((r) => r.key);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).not.toBe(keys[0]);
  });

  it('retries a 503 with the same key and stores one thread', async () => {
    proxy.faults.push('unavailable', 'unavailable');
    const thread = await start('busy');
    const posts = proxy.seen.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(3);
    expect(new Set(posts.map((r) => r.key)).size).toBe(1);
    expect((await parley.listThreads({ userId: 'busy' })).map((t) => t.id)).toEqual([thread.id]);
  });

  it('after an answer lost on the way back, the retry gets the first answer and nothing is stored twice', async () => {
    proxy.faults.push('lose-answer');
    const thread = await start('lost');
    proxy.faults.push('lose-answer');
    const reply = await parley.postMessage(thread.id, {
      message: { content: '/say again' },
      options: { user_id: 'lost' },
    });
    const posts = proxy.seen.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(4);
    expect(posts[1].key).toBe(posts[0].key);
    expect(posts[3].key).toBe(posts[2].key);
    expect((await parley.listThreads({ userId: 'lost' })).map((t) => t.id)).toEqual([thread.id]);
    const stored = await parley.getThread(thread.id, { userId: 'lost' });
    expect(stored.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(stored.messages[3].id).toBe(reply.id);
  });

  it('uses the key the caller gives, so a retry by the application itself is safe too', async () => {
    const first = await parley.startThread(
      { message: { content: '/say once' }, options: { agent_id: deployment.agentId, user_id: 'own-key' } },
      { idempotencyKey: 'order-42' },
    );
    const again = await parley.startThread(
      { message: { content: '/say once' }, options: { agent_id: deployment.agentId, user_id: 'own-key' } },
      { idempotencyKey: 'order-42' },
    );
    expect(again.id).toBe(first.id);
    expect(await parley.listThreads({ userId: 'own-key' })).toHaveLength(1);
  });

  it('never retries a request the service judged invalid', async () => {
    const error = await parley
      .startThread({ message: { content: '' }, options: { agent_id: 'not-an-agent', user_id: 'bad' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParleyApiError);
    expect((error as ParleyApiError).status).toBeGreaterThanOrEqual(400);
    expect((error as ParleyApiError).status).toBeLessThan(500);
    expect(proxy.seen.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('gives up after its retries with the last answer as a typed error', async () => {
    proxy.faults.push('unavailable', 'unavailable', 'unavailable', 'unavailable', 'unavailable');
    const error = await start('down').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParleyApiError);
    expect((error as ParleyApiError).status).toBe(503);
    expect((error as ParleyApiError).retryAfterSeconds).toBe(0);
    expect(proxy.seen.filter((r) => r.method === 'POST')).toHaveLength(4);
    expect(await parley.listThreads({ userId: 'down' })).toEqual([]);
  });
});
