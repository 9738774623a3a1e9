import { request } from 'node:http';
import { useDeployment } from '../support/deployment';
import { admin, adminFails } from '../factories/admin';
import { api } from '../support/http';
import { postUpload } from '../support/uploads';
import { AppProcess, startGateway } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';

/** Issue 16, items 5, 8 and 9 (API side), attacked on a real gateway. */
const ADMIN_PASSWORD = 'dashboard-s3cret-pass';

/** node:http, not fetch: header values go out byte for byte (fetch would normalize them). */
function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('security: authentication and headers (issue 16, items 5, 8, 9)', () => {
  const deployment = useDeployment({ storageDir: true, env: { ADMIN_PASSWORD } });
  let client: ReturnType<typeof api>;

  beforeAll(() => {
    client = deployment.client();
  });

  describe('item 8: the x-service-token header is parsed exactly', () => {
    const chat = () => `${deployment.url}/chat?user_id=alice`;

    it('accepts the key, and "Bearer" + one space + the key', async () => {
      expect((await get(chat(), { 'x-service-token': deployment.org.key })).status).toBe(200);
      expect((await get(chat(), { 'x-service-token': `Bearer ${deployment.org.key}` })).status).toBe(200);
    });

    it.each([
      ['a tab after Bearer', (key: string) => `Bearer\t${key}`],
      ['two spaces after Bearer', (key: string) => `Bearer  ${key}`],
      ['two Bearer prefixes', (key: string) => `Bearer Bearer ${key}`],
      ['a lower-case bearer', (key: string) => `bearer ${key}`],
      ['the key and more after a tab', (key: string) => `${key}\tjunk`],
      ['the key and more after a space', (key: string) => `${key} junk`],
    ])('answers 401 for %s, even around a valid key', async (_name, header) => {
      const response = await get(chat(), { 'x-service-token': header(deployment.org.key) });
      expect(response.status).toBe(401);
      expect(JSON.parse(response.body)).toEqual({ detail: expect.any(String) });
    });

    it('answers 401 for an empty header', async () => {
      expect((await get(chat(), { 'x-service-token': '' })).status).toBe(401);
    });

    it('keys:import refuses a legacy key of one character, or of an alphabet no key has', async () => {
      for (const key of ['x', 'short-key-19-chars', 'a legacy key with spaces in it', `${'k'.repeat(30)}!`]) {
        const failed = await adminFails(deployment.environment.env, [
          'keys:import',
          '--org',
          deployment.org.org,
          '--key',
          key,
        ]);
        expect(failed.code).toBe(1);
        expect(failed.stderr).toContain('legacy key is 20 to 512 characters');
        if (key.length > 1) expect(failed.stderr).not.toContain(key);
      }
      const good = 'legacy_Key-2019.prod~ABC+/=';
      await admin(deployment.environment.env, ['keys:import', '--org', deployment.org.org, '--key', good]);
      expect((await get(chat(), { 'x-service-token': `Bearer ${good}` })).status).toBe(200);
    });
  });

  describe('item 5: password guesses are throttled on Redis', () => {
    async function protectedLink(password: string): Promise<string> {
      const permission = await client.get('/chat/files/upload?filename=p.txt&mimetype=text/plain');
      expect((await postUpload(permission.body, Buffer.from('protected bytes'), 'p.txt')).status).toBe(204);
      const link = await client.post(
        `/chat/files/${permission.body.fields['x-amz-meta-file-id']}/share_links`,
        {
          password,
        },
      );
      return link.body.url as string;
    }

    it('locks a link after 10 wrong passwords (429, Retry-After), the right one included', async () => {
      const url = await protectedLink('correct horse battery');
      const guesses = await Promise.all(
        Array.from({ length: 14 }, (_, i) => get(url, { 'x-share-password': `guess-${i}` })),
      );
      const statuses = guesses.map((guess) => guess.status).sort();
      // Counted before scrypt: concurrent guesses cannot outrun the budget of 10.
      expect(statuses).toEqual([...Array(10).fill(403), ...Array(4).fill(429)]);
      const locked = await get(url, { 'x-share-password': 'correct horse battery' });
      expect(locked.status).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(900);
      expect(JSON.parse(locked.body)).toEqual({ detail: 'Too many password attempts' });
    });

    it('a right password gives its attempt back: many downloads never lock the owner out', async () => {
      const url = await protectedLink('s3cret');
      for (let i = 0; i < 12; i++) {
        expect((await get(url, { 'x-share-password': 's3cret' })).status).toBe(200);
      }
    });

    it('bounds one client address across links (30 guesses)', async () => {
      // The first test spent 15 of this address's 30 (14 guesses, then the locked right one); 15 more wrong
      // guesses, under each link's own budget of 10, spend the rest.
      const links = await Promise.all([protectedLink('a-pass'), protectedLink('b-pass')]);
      const statuses: number[] = [];
      for (const [url, count] of [
        [links[0], 8],
        [links[1], 7],
      ] as const) {
        for (let i = 0; i < count; i++)
          statuses.push((await get(url, { 'x-share-password': 'nope' })).status);
      }
      expect(statuses).toEqual(Array(15).fill(403));
      const fresh = await protectedLink('c-pass');
      expect((await get(fresh, { 'x-share-password': 'c-pass' })).status).toBe(429);
    });

    it('throttles dashboard logins per client address, the right password included', async () => {
      const url = `${deployment.url}/admin/queues`;
      expect((await get(url, { authorization: basic('admin', ADMIN_PASSWORD) })).status).toBe(200);
      expect((await get(url)).status).toBe(401);
      const guesses = await Promise.all(
        Array.from({ length: 24 }, (_, i) => get(url, { authorization: basic('admin', `guess-${i}`) })),
      );
      const statuses = guesses.map((guess) => guess.status).sort();
      expect(statuses).toEqual([...Array(20).fill(401), ...Array(4).fill(429)]);
      const locked = await get(url, { authorization: basic('admin', ADMIN_PASSWORD) });
      expect(locked.status).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe('item 9: headers of the API', () => {
    it('sends helmet headers, and no CORS headers when CORS_ORIGINS is unset', async () => {
      const response = await get(`${deployment.url}/chat?user_id=alice`, {
        'x-service-token': deployment.org.key,
        origin: 'https://evil.example',
      });
      expect(response.status).toBe(200);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['strict-transport-security']).toBeDefined();
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await new Promise<number>((resolve, reject) => {
        const req = request(`${deployment.url}/chat`, {
          method: 'OPTIONS',
          headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
        });
        req.on('response', (res) => {
          expect(res.headers['access-control-allow-origin']).toBeUndefined();
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end();
      });
      expect(preflight).not.toBe(204);
    });

    it('keeps /docs working: its page only loads same-origin scripts, which the CSP allows', async () => {
      const page = await get(`${deployment.url}/docs`);
      expect(page.status).toBe(200);
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      const scripts = [...page.body.matchAll(/<script([^>]*)>/g)].map((match) => match[1]);
      expect(scripts.length).toBeGreaterThan(0);
      // Every script is a same-origin file (no inline code the CSP would block), and each one loads.
      for (const attributes of scripts) {
        const src = /src=["']([^"']+)["']/.exec(attributes)?.[1];
        expect(src).toBeDefined();
        expect(src).not.toMatch(/^https?:/);
        expect((await get(new URL(src!, `${deployment.url}/docs`).toString())).status).toBe(200);
      }
    });
  });
});

describe('security: CORS when configured (issue 16, item 9)', () => {
  let environment: TestEnvironment;
  let gateway: AppProcess;

  beforeAll(async () => {
    environment = await createTestEnvironment({ CORS_ORIGINS: 'https://app.example,https://ops.example' });
    gateway = await startGateway(environment.env);
  });

  afterAll(async () => {
    await gateway?.stop();
    await environment?.dispose();
  });

  it('answers the listed origins only', async () => {
    const allowed = await get(`${gateway.url}/health/live`, { origin: 'https://app.example' });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example');
    const other = await get(`${gateway.url}/health/live`, { origin: 'https://evil.example' });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
