import { createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';

/**
 * RATE_LIMIT_PER_MINUTE on two gateway processes sharing one Redis: the count is per key and shared by both,
 * so the key's requests spread over the two are refused once together they pass the limit.
 */
const LIMIT = 5;

describe('rate limits per key across gateway replicas', () => {
  let environment: TestEnvironment;
  let gateways: AppProcess[];
  let limited: OrgFixture;
  let other: OrgFixture;
  let browsers: OrgFixture;

  beforeAll(async () => {
    environment = await createTestEnvironment({ RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    // One after the other: on a loaded machine two cold starts at once can each miss their start deadline.
    gateways = [await startGateway(environment.env), await startGateway(environment.env)];
    [limited, other, browsers] = await Promise.all([
      createOrg(environment.env),
      createOrg(environment.env),
      createOrg(environment.env),
    ]);
  });

  afterAll(async () => {
    await Promise.all((gateways ?? []).map((gateway) => gateway.stop()));
    await environment?.dispose();
  });

  it('counts one key across both gateways, then answers 429 with Retry-After and RateLimit-* headers', async () => {
    const [first, second] = gateways.map((gateway) => api(gateway.url!, limited.key));
    const answers = [];
    for (let i = 0; i < LIMIT; i++) answers.push(await (i % 2 === 0 ? first : second).get('/agents'));
    expect(answers.map((answer) => answer.status)).toEqual(Array(LIMIT).fill(200));
    expect(answers[0].headers.get('ratelimit-limit')).toBe(String(LIMIT));
    expect(answers.map((answer) => answer.headers.get('ratelimit-remaining'))).toEqual(
      Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)),
    );
    expect(Number(answers[0].headers.get('ratelimit-reset'))).toBeGreaterThan(0);

    for (const client of [first, second]) {
      const refused = await client.get('/agents');
      expect(refused.status).toBe(429);
      expect(refused.body.detail).toMatch(/Rate limit exceeded/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('counts a key sent as Authorization: Bearer the same as in x-service-token', async () => {
    const bearer = api(gateways[0].url!);
    const refused = await bearer.get('/agents', { authorization: `Bearer ${limited.key}` });
    expect(refused.status).toBe(429);
  });

  it('keeps a separate count for another key, and never counts health probes', async () => {
    expect((await api(gateways[1].url!, other.key).get('/agents')).status).toBe(200);
    for (let i = 0; i < LIMIT + 2; i++) {
      expect((await fetch(`${gateways[0].url}/health/ready`)).status).toBe(200);
    }
  });

  it("counts an end-user token's other spellings (refused, 401) against the token itself (CONTRACTS §21)", async () => {
    const minted = await api(gateways[0].url!, browsers.key).post('/end-user-tokens', { user_id: 'alice' });
    expect(minted.status).toBe(200);
    const token = minted.body.token as string;
    const respelled = [`${token}~`, `${token}=`, `${token}~~~`];
    const answers = [];
    for (const spelling of [...respelled, token]) {
      answers.push(await api(gateways[1].url!).get('/chat', { authorization: `Bearer ${spelling}` }));
    }
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 200]);
    // One count: a new spelling is no new allowance.
    expect(answers.map((answer) => answer.headers.get('ratelimit-remaining'))).toEqual(
      Array.from({ length: 4 }, (_, i) => String(LIMIT - 1 - i)),
    );
  });
});
