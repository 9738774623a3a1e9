import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { admin, adminFails, createOrg, OrgFixture } from '../factories/admin';
import { AppProcess, startGateway } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';

/** A cheap authenticated route (CONTRACTS §4): lists the threads of one end user. */
const AUTHENTICATED = '/chat?user_id=u';
const SHORT_TTL_MS = 800;

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** node:http, not fetch: header values go out byte for byte (fetch would trim `Bearer `). */
function get(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method: 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

describe('authentication (x-service-token)', () => {
  let environment: TestEnvironment;
  let gateway: AppProcess;
  let longCache: AppProcess;
  let org: OrgFixture;
  const legacySecret = `legacy-${Math.random().toString(36).slice(2)}-secret`;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    [gateway, longCache] = await Promise.all([
      startGateway(environment.env, { KEY_CACHE_TTL_MS: String(SHORT_TTL_MS) }),
      startGateway(environment.env, { KEY_CACHE_TTL_MS: '60000' }),
    ]);
    org = await createOrg(environment.env);
    await admin(environment.env, ['keys:import', '--org', org.org, '--key', legacySecret]);
  });

  afterAll(async () => {
    await Promise.all([gateway?.stop(), longCache?.stop()]);
    await environment?.dispose();
  });

  describe('refuses with 401 {"detail"}', () => {
    it.each([
      ['no header', {}, 'Missing x-service-token or Authorization: Bearer header'],
      ['an empty header', { 'x-service-token': '' }, 'Malformed x-service-token header'],
      ['"Bearer " alone', { 'x-service-token': 'Bearer ' }, 'Malformed x-service-token header'],
      ['"Bearer Bearer x"', { 'x-service-token': 'Bearer Bearer x' }, 'Malformed x-service-token header'],
      ['an unknown sk-svc- key', { 'x-service-token': 'sk-svc-unknown' }, 'Invalid or revoked service token'],
      ['an unknown legacy key', { 'x-service-token': 'no-such-key' }, 'Invalid or revoked service token'],
    ])('%s', async (_name, headers, detail) => {
      const response = await get(gateway.url!, AUTHENTICATED, headers);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail });
      expect(response.headers['x-request-id']).toBeTruthy();
    });

    it('a key given with two Bearer prefixes, even a valid one', async () => {
      const response = await get(gateway.url!, AUTHENTICATED, {
        'x-service-token': `Bearer Bearer ${org.key}`,
      });
      expect(response.status).toBe(401);
    });
  });

  describe('accepts', () => {
    it('a sk-svc- key as it is', async () => {
      const response = await get(gateway.url!, AUTHENTICATED, { 'x-service-token': org.key });
      expect(response.status).toBe(200);
      expect(Array.isArray(response.body)).toBe(true);
    });

    it('a sk-svc- key after "Bearer "', async () => {
      expect(
        (await get(gateway.url!, AUTHENTICATED, { 'x-service-token': `Bearer ${org.key}` })).status,
      ).toBe(200);
    });

    it('an imported legacy key, plain and after "Bearer "', async () => {
      expect((await get(gateway.url!, AUTHENTICATED, { 'x-service-token': legacySecret })).status).toBe(200);
      expect(
        (await get(gateway.url!, AUTHENTICATED, { 'x-service-token': `Bearer ${legacySecret}` })).status,
      ).toBe(200);
    });
  });

  describe('x-request-id', () => {
    it('is on every response, made up when not sent', async () => {
      const ok = await get(gateway.url!, AUTHENTICATED, { 'x-service-token': org.key });
      const refused = await get(gateway.url!, AUTHENTICATED);
      const health = await get(gateway.url!, '/health/live');
      const ids = [ok, refused, health].map((response) => response.headers['x-request-id']);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Set(ids).size).toBe(3);
    });

    it('echoes the one sent', async () => {
      const ok = await get(gateway.url!, AUTHENTICATED, {
        'x-service-token': org.key,
        'x-request-id': 'req-42',
      });
      const refused = await get(gateway.url!, AUTHENTICATED, { 'x-request-id': 'req-43' });
      expect(ok.headers['x-request-id']).toBe('req-42');
      expect(refused.headers['x-request-id']).toBe('req-43');
    });
  });

  describe('revocation', () => {
    it('stops a revoked key at once on every gateway, even with a long cache (pub/sub invalidation)', async () => {
      const { key, keyId } = await createOrg(environment.env);
      // Both gateways have the key cached.
      for (const app of [gateway, longCache]) {
        expect((await get(app.url!, AUTHENTICATED, { 'x-service-token': key })).status).toBe(200);
      }
      expect(await admin(environment.env, ['keys:revoke', '--id', keyId])).toEqual({
        id: keyId,
        revoked: true,
      });
      const waited = await eventually(
        async () => (await get(longCache.url!, AUTHENTICATED, { 'x-service-token': key })).status === 401,
        2000,
      );
      expect(waited).toBeLessThan(2000);
      const refused = await get(gateway.url!, AUTHENTICATED, { 'x-service-token': key });
      expect(refused).toMatchObject({ status: 401, body: { detail: 'Invalid or revoked service token' } });
    });

    it('stops a key revoked without any message within KEY_CACHE_TTL_MS', async () => {
      const { key, keyId } = await createOrg(environment.env);
      expect((await get(gateway.url!, AUTHENTICATED, { 'x-service-token': key })).status).toBe(200);
      expect((await get(longCache.url!, AUTHENTICATED, { 'x-service-token': key })).status).toBe(200);
      // Revoked in the table only: no pub/sub message, so only the cache TTL can end it.
      await queryDatabase(environment.databaseUrl, 'UPDATE api_keys SET revoked_at = now() WHERE id = $1', [
        keyId,
      ]);
      // The long cache still holds it: the cache is what spares a database round trip per request.
      expect((await get(longCache.url!, AUTHENTICATED, { 'x-service-token': key })).status).toBe(200);
      await eventually(
        async () => (await get(gateway.url!, AUTHENTICATED, { 'x-service-token': key })).status === 401,
        SHORT_TTL_MS + 1500,
      );
    });

    it('fails for an unknown key id with exit 1', async () => {
      const result = await adminFails(environment.env, [
        'keys:revoke',
        '--id',
        '00000000-0000-7000-8000-000000000000',
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('Key not found');
    });
  });

  describe('storage', () => {
    it('keeps no key in clear: only its SHA-256', async () => {
      const rows = await queryDatabase<Record<string, unknown>>(
        environment.databaseUrl,
        'SELECT * FROM api_keys',
      );
      expect(rows.length).toBeGreaterThanOrEqual(2);
      const everything = JSON.stringify(rows);
      expect(everything).not.toContain(org.key);
      expect(everything).not.toContain(org.key.slice('sk-svc-'.length));
      expect(everything).not.toContain(legacySecret);
      const hashes = rows.map((row) => String(row.key_hash));
      expect(hashes).toContain(createHash('sha256').update(org.key).digest('hex'));
      expect(hashes).toContain(createHash('sha256').update(legacySecret).digest('hex'));
    });
  });
});
