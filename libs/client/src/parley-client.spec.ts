import { createServer } from 'node:net';
import { ParleyConnectionError } from './parley-api.error';
import { ParleyClient } from './parley-client';

/** A loopback port nothing listens on: taken, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('ParleyClient with the service down', () => {
  it('throws a ParleyConnectionError naming the base URL and the reason, not a bare TypeError', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const client = new ParleyClient({ baseUrl, token: 'sk-svc-x' });
    const error = await client.listThreads({ userId: 'alice' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ParleyConnectionError);
    expect((error as ParleyConnectionError).baseUrl).toBe(baseUrl);
    expect((error as Error).message).toBe(
      `Parley service unreachable at ${baseUrl}: connect ECONNREFUSED ${baseUrl.slice('http://'.length)}`,
    );
  });

  it('says how many attempts a write made before giving up', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const client = new ParleyClient({ baseUrl, token: 'sk-svc-x', maxRetries: 2, retryBackoffMs: 1 });
    const body = { message: { content: 'hi' }, options: { agent_id: 'a', user_id: 'u' } };
    const error = await client.startThread(body).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ParleyConnectionError);
    expect((error as Error).message).toMatch(
      new RegExp(`^Parley service unreachable at ${baseUrl}: .*\\(3 attempts\\)$`),
    );
  });
});
