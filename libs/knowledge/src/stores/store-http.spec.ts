import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { readBounded, storeFetch, StoreUnavailableError } from './store-http';

describe('storeFetch', () => {
  let server: Server;
  let base: string;
  let hits: number[] = [];
  let replies: ((res: import('node:http').ServerResponse) => void)[] = [];

  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits.push(Date.now());
      const reply = replies.shift() ?? ((r) => r.end('ok'));
      reply(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    hits = [];
    replies = [];
  });

  it('waits as long as Retry-After asks after a 429, then succeeds', async () => {
    replies.push((res) => res.writeHead(429, { 'retry-after': '1' }).end());
    const response = await storeFetch(`${base}/x`, {}, { timeoutMs: 5000, maxRetries: 3, maxDelayMs: 5000 });
    expect(response.status).toBe(200);
    expect(hits).toHaveLength(2);
    expect(hits[1] - hits[0]).toBeGreaterThanOrEqual(950);
  });

  it('cuts a long Retry-After to the bound, and gives the last error back after the retries', async () => {
    for (let i = 0; i < 3; i++) replies.push((res) => res.writeHead(503, { 'retry-after': '3600' }).end());
    const started = Date.now();
    const response = await storeFetch(`${base}/x`, {}, { timeoutMs: 5000, maxRetries: 2, maxDelayMs: 50 });
    expect(response.status).toBe(503);
    expect(hits).toHaveLength(3);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('times out a silent server and reports it unavailable', async () => {
    replies.push(() => undefined);
    await expect(
      storeFetch(`${base}/x`, {}, { timeoutMs: 200, maxRetries: 0, maxDelayMs: 10 }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('stops reading a body over the cap', async () => {
    replies.push((res) => res.end(Buffer.alloc(5000)));
    const response = await storeFetch(`${base}/x`, {}, { timeoutMs: 5000, maxRetries: 0, maxDelayMs: 10 });
    expect(await readBounded(response, 1000)).toBeNull();
  });
});
