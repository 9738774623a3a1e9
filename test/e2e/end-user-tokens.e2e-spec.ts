import { signEndUserToken } from '@app/identity';
import { admin, AgentFixture, createAgent, createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';

/**
 * End-user tokens (CONTRACTS §17) on two real gateways sharing PostgreSQL and Redis: what a token may do and
 * as whom, what it may not, and that revoking its key stops it everywhere at once. No worker: replies stay
 * pending, which is all the scoping needs.
 */
const FORBIDDEN = { detail: 'Not allowed with an end-user token' };
const APP_ORIGIN = 'https://app.example.com';

let environment: TestEnvironment;
let gateway: AppProcess;
let peer: AppProcess;
let org: OrgFixture;
let agent: AgentFixture;
let otherAgent: AgentFixture;
let service: ReturnType<typeof api>;

async function mint(body: Record<string, unknown>, key = org.key) {
  const response = await api(gateway.url!, key).post('/end-user-tokens', body);
  expect(response.status).toBe(200);
  return response.body as { token: string; user_id: string; expires_at: string };
}

/** A client holding the token as browsers do: `Authorization: Bearer`. */
const asBrowser = (baseUrl: string, token: string) => {
  const client = api(baseUrl);
  const auth = { authorization: `Bearer ${token}` };
  return {
    get: (path: string) => client.get(path, auth),
    post: (path: string, body?: unknown) => client.post(path, body, auth),
  };
};

const startChat = (agentId: string, userId?: string) => ({
  message: { content: 'hello' },
  options: { agent_id: agentId, ...(userId ? { user_id: userId } : {}) },
});

beforeAll(async () => {
  environment = await createTestEnvironment();
  // A long key cache: only the revocation message can make these gateways forget a key in time.
  [gateway, peer] = await Promise.all([
    startGateway(environment.env, { KEY_CACHE_TTL_MS: '60000', CORS_ORIGINS: APP_ORIGIN }),
    startGateway(environment.env, { KEY_CACHE_TTL_MS: '60000' }),
  ]);
  org = await createOrg(environment.env);
  [agent, otherAgent] = await Promise.all([
    createAgent(environment.env, org.org),
    createAgent(environment.env, org.org),
  ]);
  service = api(gateway.url!, org.key);
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), peer?.stop()]);
  await environment?.dispose();
});

describe('POST /end-user-tokens', () => {
  it('answers an eut_ token for the user, expiring after ttl_seconds', async () => {
    const before = Date.now();
    const minted = await mint({ user_id: 'alice', ttl_seconds: 120 });
    expect(minted.token).toMatch(/^eut_/);
    expect(minted.user_id).toBe('alice');
    const after = Date.now();
    const expiresAt = Date.parse(minted.expires_at);
    // Whole seconds (the server rounds its clock down), and the request's own time on a loaded machine: the
    // server read its clock between `before` and `after`, so the ttl counts from no later than `after`.
    expect(expiresAt - before).toBeGreaterThan(110_000);
    expect(expiresAt - after).toBeLessThanOrEqual(120_000);
  });

  it('refuses a ttl outside 60..86400 and more than ten agents (422)', async () => {
    const short = await service.post('/end-user-tokens', { user_id: 'alice', ttl_seconds: 59 });
    expect(short.status).toBe(422);
    expect(short.body.detail[0]).toMatchObject({ loc: ['body', 'ttl_seconds'], type: 'greater_than_equal' });
    const many = Array.from({ length: 11 }, () => agent.id);
    const tooMany = await service.post('/end-user-tokens', { user_id: 'alice', agent_ids: many });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0].loc).toEqual(['body', 'agent_ids']);
  });

  it('answers 404 for an agent that is not one of the organization', async () => {
    const response = await service.post('/end-user-tokens', {
      user_id: 'alice',
      agent_ids: ['0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11'],
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Agent not found' });
  });

  it('cannot be called with an end-user token (403)', async () => {
    const { token } = await mint({ user_id: 'alice' });
    const response = await asBrowser(gateway.url!, token).post('/end-user-tokens', { user_id: 'mallory' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(FORBIDDEN);
  });
});

describe('a token acts as its one end user', () => {
  let alice: ReturnType<typeof asBrowser>;
  let bobThreadId: string;

  beforeAll(async () => {
    alice = asBrowser(gateway.url!, (await mint({ user_id: 'alice' })).token);
    const bob = await service.post('/chat', startChat(agent.id, 'bob'));
    bobThreadId = bob.body.id;
  });

  it('starts a thread owned by its user without naming one', async () => {
    const started = await alice.post('/chat', startChat(agent.id));
    expect(started.status).toBe(200);
    const listed = await service.get('/chat?user_id=alice');
    expect(listed.body.map((thread: { id: string }) => thread.id)).toContain(started.body.id);
  });

  it("lists, reads, streams and follows up only its user's threads", async () => {
    const started = await alice.post('/chat', startChat(agent.id, 'alice'));
    const threadId = started.body.id;
    const listed = await alice.get('/chat');
    expect(listed.status).toBe(200);
    const ids = listed.body.map((thread: { id: string }) => thread.id);
    expect(ids).toContain(threadId);
    expect(ids).not.toContain(bobThreadId);
    expect((await alice.get(`/chat/${threadId}`)).status).toBe(200);
    const followUp = await alice.post(`/chat/${threadId}`, { message: { content: 'more' } });
    expect(followUp.status).toBe(200);
    expect((await alice.get(`/chat/${bobThreadId}`)).status).toBe(404);
    expect((await alice.post(`/chat/${bobThreadId}`, { message: { content: 'x' } })).status).toBe(404);
    const bobsReply = (await service.get(`/chat/${bobThreadId}`)).body.messages[1].id;
    expect((await alice.get(`/chat/messages/${bobsReply}/stream`)).status).toBe(404);
  });

  it('may ask for an upload permission', async () => {
    const response = await alice.get('/chat/files/upload?filename=a.txt&mimetype=text/plain');
    expect(response.status).toBe(200);
    expect(response.body.fields['x-amz-meta-file-id']).toEqual(expect.any(String));
  });

  it('answers 403 for a user_id that is not its own, wherever it is given', async () => {
    for (const response of [
      await alice.get('/chat?user_id=bob'),
      await alice.get(`/chat/${bobThreadId}?user_id=bob`),
      await alice.post('/chat', startChat(agent.id, 'bob')),
      await alice.post(`/chat/${bobThreadId}`, { message: { content: 'x' }, options: { user_id: 'bob' } }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ detail: 'user_id differs from the end user of the token' });
    }
  });

  it.each([
    ['GET', '/agents'],
    ['GET', '/memory/files?namespace=ns'],
    ['GET', '/webhooks'],
    ['GET', '/routines?user_id=alice'],
    ['GET', '/dc/connections?user_id=alice'],
    ['GET', '/skills'],
  ])('answers 403 on %s %s, a route not open to end-user tokens', async (method, path) => {
    const response = method === 'GET' ? await alice.get(path) : await alice.post(path, {});
    expect(response.status).toBe(403);
    expect(response.body).toEqual(FORBIDDEN);
  });

  it('is accepted in x-service-token too', async () => {
    const { token } = await mint({ user_id: 'alice' });
    expect((await api(gateway.url!, token).get('/chat')).status).toBe(200);
  });
});

describe('agent_ids', () => {
  let limited: ReturnType<typeof asBrowser>;
  let limitedToken: string;

  beforeAll(async () => {
    limitedToken = (await mint({ user_id: 'carol', agent_ids: [agent.id] })).token;
    limited = asBrowser(gateway.url!, limitedToken);
    await service.post('/chat', startChat(otherAgent.id, 'carol'));
  });

  it('starts threads with its agents only; another is not found', async () => {
    expect((await limited.post('/chat', startChat(agent.id))).status).toBe(200);
    const refused = await limited.post('/chat', startChat(otherAgent.id));
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ detail: 'Agent not found' });
  });

  it("lists only its agents' threads, and refuses to list another's", async () => {
    const listed = await limited.get('/chat');
    expect(listed.body.length).toBeGreaterThan(0);
    for (const thread of listed.body) expect(thread.agent.id).toBe(agent.id);
    expect((await limited.get(`/chat?agent_ids=${otherAgent.id}`)).status).toBe(403);
  });

  it("sees no thread of another agent, though the user's own: no follow-up, read or change", async () => {
    const other = (await service.get('/chat?user_id=carol')).body.find(
      (thread: { agent: { id: string } }) => thread.agent.id === otherAgent.id,
    );
    const followUp = await limited.post(`/chat/${other.id}`, { message: { content: 'x' } });
    expect(followUp.status).toBe(404);
    expect(followUp.body).toEqual({ detail: 'Thread not found' });
    expect((await limited.get(`/chat/${other.id}`)).status).toBe(404);
    const auth = { authorization: `Bearer ${limitedToken}` };
    expect((await api(gateway.url!).put(`/chat/${other.id}`, { starred: true }, auth)).status).toBe(404);
    expect((await api(gateway.url!).delete(`/chat/${other.id}`, auth)).status).toBe(404);
    const stored = (await service.get(`/chat/${other.id}?user_id=carol`)).body;
    expect(stored.starred).toBe(false);
    expect((await limited.get(`/chat/messages/${stored.messages[1].id}/stream`)).status).toBe(404);
    // Its own agent's replies stream as usual.
    const own = (await limited.post('/chat', startChat(agent.id))).body;
    const ownStream = await fetch(`${gateway.url}/chat/messages/${own.messages[0].id}/stream`, {
      headers: { authorization: `Bearer ${limitedToken}` },
    });
    expect(ownStream.status).toBe(200);
    await ownStream.body?.cancel();
  });
});

describe('a token that is not good', () => {
  const storedSecret = async () =>
    (
      await queryDatabase<{ value: string }>(
        environment.databaseUrl,
        `SELECT value FROM deployment_secrets WHERE name = 'end_user_token_secret'`,
      )
    )[0].value;

  it('is refused once expired (401)', async () => {
    const expired = signEndUserToken(await storedSecret(), {
      keyId: org.keyId,
      orgId: org.orgId,
      userId: 'alice',
      agentIds: null,
      memoryNamespaces: [],
      expiresAt: new Date(Date.now() - 1000),
    });
    const response = await asBrowser(gateway.url!, expired).get('/chat');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Expired end-user token' });
  });

  it('is refused when any character changed (401)', async () => {
    const { token } = await mint({ user_id: 'alice' });
    const [payload, signature] = token.slice(4).split('.');
    const asBob = Buffer.from(payload, 'base64url').toString('utf8').replace('"alice"', '"bob"');
    for (const tampered of [
      `eut_${Buffer.from(asBob).toString('base64url')}.${signature}`,
      `eut_${payload}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`,
    ]) {
      const response = await asBrowser(gateway.url!, tampered).get('/chat');
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail: 'Invalid end-user token' });
    }
  });

  it('is refused in any spelling but the one it was minted in, and so is a key (401, CONTRACTS §21)', async () => {
    const { token } = await mint({ user_id: 'alice' });
    const signature = token.slice(token.indexOf('.') + 1);
    // The last of 43 characters carries 2 bits no byte uses: flipping one decodes to the same signature.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature.at(-1)!);
    const sameBits = `${token.slice(0, -1)}${alphabet[last ^ 1]}`;
    for (const respelled of [`${token}~`, `${token}=`, `${token}~~~`, `${token}==`, sameBits]) {
      const response = await asBrowser(gateway.url!, respelled).get('/chat');
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail: 'Invalid end-user token' });
    }
    expect((await asBrowser(gateway.url!, token).get('/chat')).status).toBe(200);
    for (const respelled of [`${org.key}~`, `${org.key}=`]) {
      expect((await api(gateway.url!, respelled).get('/agents')).status).toBe(401);
    }
  });

  it('is refused on every gateway at once when its key is revoked', async () => {
    const key = await admin<{ id: string; key: string }>(environment.env, ['keys:create', '--org', org.org]);
    const { token } = await mint({ user_id: 'alice' }, key.key);
    // Both gateways have the key cached (for a minute) before the revocation.
    for (const url of [gateway.url!, peer.url!]) {
      expect((await asBrowser(url, token).get('/chat')).status).toBe(200);
    }
    await admin(environment.env, ['keys:revoke', '--id', key.id]);
    for (const url of [gateway.url!, peer.url!]) {
      const started = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - started < 2000) {
        status = (await asBrowser(url, token).get('/chat')).status;
      }
      expect(status).toBe(401);
    }
    // The organization's other key, and its tokens, still work.
    const { token: still } = await mint({ user_id: 'alice' });
    expect((await asBrowser(peer.url!, still).get('/chat')).status).toBe(200);
  });
});

describe('CORS_ORIGINS', () => {
  it('lets a page on that origin send the token in Authorization', async () => {
    const preflight = await fetch(`${gateway.url}/chat`, {
      method: 'OPTIONS',
      headers: {
        origin: APP_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    // What a page resuming an AG-UI run sends, and what the A2A client sends (CONTRACTS §22).
    expect(preflight.headers.get('access-control-allow-headers')).toContain('last-event-id');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('a2a-version');
    const other = await fetch(`${gateway.url}/chat`, {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
