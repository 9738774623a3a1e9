import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Settings } from '@app/config';
import { UntrustedParsing } from '@app/documents';
import { ToolCallContext, ToolError } from '../tool';
import { WebPage, WebToolSource } from './web-tool';

const context = { signal: new AbortController().signal } as ToolCallContext;

function settings(overrides: Partial<Settings> = {}): Settings {
  return Object.assign(new Settings(), { webToolAllowPrivate: true, webToolTimeoutMs: 1000, ...overrides });
}

describe('web tool', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/page') {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(
          '<html><head><title>Fjords &amp; more</title><script>var secret = 1;</script></head>' +
            '<body><h1>Norway</h1><p>Deep <a href="/more">water</a>.</p><img src="x.png"></body></html>',
        );
      } else if (path.startsWith('/hop/')) {
        const left = Number(path.slice(5));
        res.statusCode = 302;
        res.setHeader('location', left > 0 ? `/hop/${left - 1}` : '/page');
        res.end();
      } else if (path === '/gzip') {
        res.setHeader('content-type', 'text/plain');
        res.setHeader('content-encoding', 'gzip');
        res.end(gzipSync('compressed words'));
      } else if (path === '/big') {
        res.setHeader('content-type', 'text/plain');
        res.end('a'.repeat(50000));
      } else if (path === '/slow') {
        res.setHeader('content-type', 'text/plain');
        res.write('start');
      } else if (path === '/unclosed-titles') {
        res.setHeader('content-type', 'text/html');
        res.end('<html><head><title>' + '<title>'.repeat((512 * 1024) / 7));
      } else if (path === '/binary') {
        res.setHeader('content-type', 'image/png');
        res.end(Buffer.from([137, 80, 78, 71]));
      } else {
        res.statusCode = 404;
        res.end('nope');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const fetchWith = (url: string, overrides: Partial<Settings> = {}) =>
    new WebToolSource(settings(overrides), new UntrustedParsing(settings())).tool.execute(
      { url },
      context,
    ) as Promise<WebPage>;

  it('returns the readable text and title of an HTML page, without scripts or images', async () => {
    const page = await fetchWith(`${base}/page`);
    expect(page).toMatchObject({
      url: `${base}/page`,
      status: 200,
      title: 'Fjords & more',
      truncated: false,
    });
    expect(page.text).toContain('Norway');
    expect(page.text).toContain(`Deep water [${base}/more].`);
    expect(page.text).not.toContain('secret');
    expect(page.text).not.toContain('x.png');
  });

  it('follows redirects up to the limit and reports the final URL', async () => {
    await expect(fetchWith(`${base}/hop/2`, { webToolMaxRedirects: 3 })).resolves.toMatchObject({
      url: `${base}/page`,
    });
    await expect(fetchWith(`${base}/hop/3`, { webToolMaxRedirects: 3 })).rejects.toThrow(
      'too many redirects (more than 3)',
    );
  });

  it('decompresses, caps the bytes read and the characters returned', async () => {
    await expect(fetchWith(`${base}/gzip`)).resolves.toMatchObject({ text: 'compressed words' });
    const capped = await fetchWith(`${base}/big`, { webToolMaxBytes: 2048, webToolMaxChars: 100 });
    expect(capped.text).toHaveLength(100);
    expect(capped.truncated).toBe(true);
  });

  it('gives up on a server that does not finish within the timeout', async () => {
    await expect(fetchWith(`${base}/slow`, { webToolTimeoutMs: 200 })).rejects.toThrow(
      'no complete answer within 0.2 s',
    );
  });

  it('answers errors the model can read: HTTP errors, binary content, bad URLs', async () => {
    await expect(fetchWith(`${base}/missing`)).rejects.toThrow(
      new ToolError(`${base}/missing answered HTTP 404`),
    );
    await expect(fetchWith(`${base}/binary`)).rejects.toThrow('is image/png, not a page with text');
    await expect(fetchWith('file:///etc/passwd')).rejects.toThrow('only http and https URLs can be fetched');
  });

  it('refuses loopback by default, by IP and by a name resolving to it', async () => {
    const strict = { webToolAllowPrivate: false };
    await expect(fetchWith(`${base}/page`, strict)).rejects.toThrow(ToolError);
    await expect(fetchWith(`${base}/page`, strict)).rejects.toThrow(
      `refused ${base}/page: 127.0.0.1 is an address of this host`,
    );
    const port = (server.address() as AddressInfo).port;
    await expect(fetchWith(`http://localhost:${port}/page`, strict)).rejects.toThrow(
      /localhost resolves to (127\.0\.0\.1|::1), an address of this host/,
    );
  });

  it('reads a 512 KiB page of unclosed <title> in linear time, its title being the rest of the page', async () => {
    const started = Date.now();
    const page = await fetchWith(`${base}/unclosed-titles`, { webToolMaxChars: 50 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(page.title).toMatch(/^<title><title>/);
    expect(page.truncated).toBe(true);
  });
});
