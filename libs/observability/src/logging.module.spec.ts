import pino from 'pino';
import { pinoHttp } from 'pino-http';
import { createServer, IncomingMessage } from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { REDACTED_PATHS, requestLogging } from './logging.module';

/** The logger's redaction as the apps configure it: secrets and credential headers never reach a line. */
describe('log redaction', () => {
  function logLine(object: object): Record<string, unknown> {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    pino({ redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination).info(object, 'line');
    return JSON.parse(lines[0]) as Record<string, unknown>;
  }

  it('censors a secret setting logged at the top of a line or inside a settings object', () => {
    const line = logLine({
      openaiApiKey: 'sk-top',
      settings: { adminPassword: 'hunter2', internalToken: 'tok', logLevel: 'info' },
    });
    expect(line.openaiApiKey).toBe('[redacted]');
    expect(line.settings).toEqual({
      adminPassword: '[redacted]',
      internalToken: '[redacted]',
      logLevel: 'info',
    });
    expect(JSON.stringify(line)).not.toMatch(/sk-top|hunter2|"tok"/);
  });

  it('censors credential headers and keeps the others', () => {
    const line = logLine({
      req: { headers: { authorization: 'Bearer sk-svc-x', 'x-service-token': 'sk-svc-y', accept: '*/*' } },
    });
    expect(line.req).toEqual({
      headers: { authorization: '[redacted]', 'x-service-token': '[redacted]', accept: '*/*' },
    });
  });
});

/** The request lines as the apps write them, behind Nest's middleware adapter (which cuts `req.url` to `/`). */
describe('request logging', () => {
  async function requestLines(
    path: string,
    headers: Record<string, string> = {},
  ): Promise<Record<string, unknown>[]> {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logRequest = pinoHttp(requestLogging('gateway', 'info'), destination);
    const server = createServer((req: IncomingMessage & { originalUrl?: string }, res) => {
      req.originalUrl = req.url;
      req.url = '/';
      logRequest(req, res);
      res.setHeader('content-security-policy', "default-src 'self'");
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await (await fetch(`http://127.0.0.1:${port}${path}`, { headers })).text();
    await new Promise((resolve) => server.close(resolve));
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it('writes one line per request: method, path without its query, status and request id, no header', async () => {
    const lines = await requestLines('/agents?user_id=someone', {
      'x-request-id': 'req-1',
      'x-service-token': 'sk-svc-secret',
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      app: 'gateway',
      requestId: 'req-1',
      req: { method: 'GET', url: '/agents' },
      res: { statusCode: 200 },
      msg: 'request completed',
    });
    expect(JSON.stringify(lines[0])).not.toMatch(/someone|sk-svc-secret|content-security-policy/);
  });

  it.each(['/health/live', '/health/ready', '/metrics', '/metrics?x=1'])(
    'writes no line for %s',
    async (path) => {
      expect(await requestLines(path)).toEqual([]);
    },
  );
});
