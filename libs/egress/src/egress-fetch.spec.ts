import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { DeniedAddressError } from './address-policy';
import { egressFetch } from './egress-fetch';

describe('egressFetch', () => {
  let server: Server;
  let base: string;
  const hits: { method?: string; url?: string; auth?: string; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        hits.push({
          method: req.method,
          url: req.url,
          auth: req.headers.authorization,
          body: Buffer.concat(chunks).toString(),
        });
        if (req.url === '/moved') {
          res.writeHead(307, { location: 'http://elsewhere.example/mcp' }).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'set-cookie': ['a=1', 'b=2'] });
        res.write('data: one\n\n');
        setTimeout(() => res.end('data: two\n\n'), 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  beforeEach(() => {
    hits.length = 0;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses a loopback address, by IP and by a name resolving to it, without a request reaching it', async () => {
    const guarded = egressFetch(false);
    await expect(guarded(`${base}/mcp`, { method: 'POST', body: '{}' })).rejects.toThrow(DeniedAddressError);
    await expect(guarded(base.replace('127.0.0.1', 'localhost'))).rejects.toThrow(
      /^localhost resolves to (127\.0\.0\.1|::1), an address of this host$/,
    );
    expect(hits).toEqual([]);
  });

  it('sends the method, headers and body, and streams the answer with its headers', async () => {
    const response = await egressFetch(true)(new URL(`${base}/mcp`), {
      method: 'POST',
      headers: new Headers({ authorization: 'Bearer t' }),
      body: '{"jsonrpc":"2.0"}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(await response.text()).toBe('data: one\n\ndata: two\n\n');
    expect(hits).toEqual([{ method: 'POST', url: '/mcp', auth: 'Bearer t', body: '{"jsonrpc":"2.0"}' }]);
  });

  it('answers a redirect as it came, without following it', async () => {
    const response = await egressFetch(true)(`${base}/moved`);
    expect(response.status).toBe(307);
    expect(response.headers.get('location')).toBe('http://elsewhere.example/mcp');
    expect(hits.map((hit) => hit.url)).toEqual(['/moved']);
  });

  it('refuses a scheme that is not http(s)', async () => {
    await expect(egressFetch(true)('file:///etc/passwd')).rejects.toThrow(/only http and https/);
  });
});
