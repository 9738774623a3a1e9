import { useDeployment } from '../support/deployment';
import { OrgFixture } from '../factories/admin';
import { api, JsonResponse } from '../support/http';
import { queryDatabase } from '../support/test-environment';

/**
 * GET /chat pages beyond its 100-thread limit with the `before` cursor (our extension). The threads are inserted
 * straight into the database: 230 through the API would cost the test its point. Half of them share one
 * created_at, so the cursor has to order ties by id to neither skip nor repeat one.
 */
const deployment = useDeployment();
let other: OrgFixture;
let client: ReturnType<typeof api>;
const TIED = 115;
const SPREAD = 115;

beforeAll(async () => {
  other = await deployment.createOrg();
  const agent = await deployment.createAgent();
  const otherAgent = await deployment.createAgent([], other.org);
  const insert = `INSERT INTO threads (id, org_id, user_id, agent_id, name, created_at)
    SELECT gen_random_uuid(), $1, $2, $3, 'thread ' || n, $4::timestamptz - make_interval(secs => n * $5)
    FROM generate_series(1, $6) AS n`;
  await queryDatabase(deployment.environment.databaseUrl, insert, [
    deployment.org.orgId,
    'alice',
    agent.id,
    '2026-01-01T00:00:00.123456Z',
    0,
    TIED,
  ]);
  await queryDatabase(deployment.environment.databaseUrl, insert, [
    deployment.org.orgId,
    'alice',
    agent.id,
    '2025-12-01T00:00:00Z',
    1,
    SPREAD,
  ]);
  // Another owner's threads at the same instants never show up in alice's pages.
  await queryDatabase(deployment.environment.databaseUrl, insert, [
    other.orgId,
    'alice',
    otherAgent.id,
    '2026-01-01T00:00:00.123456Z',
    0,
    5,
  ]);
  client = deployment.client();
}, 60_000);

it('reaches every thread, each once and newest first, through x-next-cursor', async () => {
  const expected = await queryDatabase<{ id: string }>(
    deployment.environment.databaseUrl,
    'SELECT id FROM threads WHERE org_id = $1 ORDER BY created_at DESC, id DESC',
    [deployment.org.orgId],
  );
  const seen: string[] = [];
  let before: string | null = null;
  let pages = 0;
  do {
    const response: JsonResponse<{ id: string }[]> = await client.get<{ id: string }[]>(
      `/chat?user_id=alice&limit=100${before ? `&before=${before}` : ''}`,
    );
    expect(response.status).toBe(200);
    seen.push(...response.body.map((thread) => thread.id));
    before = response.headers.get('x-next-cursor');
    pages += 1;
  } while (before);
  expect(seen).toEqual(expected.map((row) => row.id));
  expect(seen).toHaveLength(TIED + SPREAD);
  // 100 + 100 + 30: the last page is not full, so it gives no cursor.
  expect(pages).toBe(3);
});

it('keeps the other filters on later pages', async () => {
  const first = await client.get<{ id: string }[]>('/chat?user_id=alice&limit=5');
  const cursor = first.headers.get('x-next-cursor')!;
  expect(cursor).toMatch(/^[A-Za-z0-9_-]{22}$/);
  const next = await client.get<{ id: string }[]>(`/chat?user_id=alice&limit=5&before=${cursor}`);
  expect(next.body).toHaveLength(5);
  expect(next.body.map((t) => t.id)).not.toContain(first.body[4].id);
  // A cursor of alice's thread means nothing to another end user: nothing after it.
  const bob = await client.get<unknown[]>(`/chat?user_id=bob&before=${cursor}`);
  expect(bob.status).toBe(200);
  expect(bob.body).toEqual([]);
});

it('refuses a malformed cursor with a 422 naming the query parameter', async () => {
  const response = await client.get('/chat?user_id=alice&before=not-a-cursor');
  expect(response.status).toBe(422);
  expect(response.body).toEqual({
    detail: [
      {
        type: 'string_pattern_mismatch',
        loc: ['query', 'before'],
        msg: "String should match pattern '^[A-Za-z0-9_-]{22}$'",
        input: 'not-a-cursor',
        ctx: { pattern: '^[A-Za-z0-9_-]{22}$' },
      },
    ],
  });
});
