import { useDeployment } from '../support/deployment';
import { OrgFixture } from '../factories/admin';
import { FAKE_USAGE, FakeOpenAI } from '../support/fake-openai';
import { api } from '../support/http';
import { queryDatabase } from '../support/test-environment';
import { startThread } from './replies.support';

/**
 * GET /usage on real processes (CONTRACTS §20): replies of several end users to a builtin and a vendor agent
 * (a local fake reporting FAKE_USAGE per call) are summed per user, agent, model and day exactly as the stored
 * replies hold them, priced by MODEL_PRICES, and never across organizations.
 */
const OPENAI_KEY = 'sk-openai-usage-1234';
const VENDOR_MODEL = 'openai:gpt-usage';
const PRICES = { [VENDOR_MODEL]: { input_per_mtok: 2.5, output_per_mtok: 10 } };

const openai = new FakeOpenAI(OPENAI_KEY);

beforeAll(() => openai.start());
const deployment = useDeployment({
  env: { MODEL_PRICES: JSON.stringify(PRICES) },
  workers: 1,
  workerEnv: () => openai.workerEnv(),
});
let otherOrg: OrgFixture;

beforeAll(async () => {
  otherOrg = await deployment.createOrg();
});

afterAll(() => openai.close());

const client = (fixture = deployment.org) => deployment.client(fixture.key);

async function createAgent(fixture: OrgFixture, model: string): Promise<string> {
  const response = await client(fixture).post('/agents', { name: `agent ${model}`, model });
  expect(response.status).toBe(200);
  return response.body.id as string;
}

/** Starts a thread of `userId` with `agentId` and waits for the reply's end: its id. */
async function replyOf(
  fixture: OrgFixture,
  agentId: string,
  userId: string,
  content: string,
): Promise<string> {
  const { replyId } = await startThread(client(fixture), agentId, userId, content);
  const stream = await fetch(`${deployment.url}/chat/messages/${replyId}/stream`, {
    headers: { 'x-service-token': fixture.key },
    signal: AbortSignal.timeout(30000),
  });
  await stream.text();
  return replyId;
}

interface StoredReply {
  user_id: string;
  agent_id: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  tool_calls: number;
  cached_input_tokens: number;
}

it('sums the stored replies by user, agent, model and day, priced by MODEL_PRICES', async () => {
  const [builtin, vendor, elsewhere] = await Promise.all([
    createAgent(deployment.org, 'builtin'),
    createAgent(deployment.org, VENDOR_MODEL),
    createAgent(otherOrg, VENDOR_MODEL),
  ]);
  await Promise.all([
    replyOf(deployment.org, builtin, 'ann', 'Hello there, how are you today?'),
    replyOf(deployment.org, builtin, 'ann', 'Tell me more'),
    replyOf(deployment.org, vendor, 'ann', 'hi'),
    // Two model calls: the tool call, then the answer with its result.
    replyOf(deployment.org, vendor, 'bob', 'call clock {}'),
    replyOf(deployment.org, builtin, 'bob', 'Short one'),
    replyOf(otherOrg, elsewhere, 'ann', 'not counted here'),
  ]);
  const stored = await queryDatabase<StoredReply>(
    deployment.environment.databaseUrl,
    `SELECT t.user_id, m.agent_id, m.model, m.input_tokens, m.output_tokens, m.tool_calls,
       m.cached_input_tokens
     FROM messages m JOIN threads t ON t.id = m.thread_id
     WHERE m.org_id = $1 AND m.role = 'assistant' AND m.status = 'success'`,
    [deployment.org.orgId],
  );
  expect(stored).toHaveLength(5);
  // The vendor's usage as it reported it; the builtin model counts words.
  const bobVendor = stored.find((row) => row.user_id === 'bob' && row.agent_id === vendor)!;
  expect(bobVendor).toMatchObject({
    model: VENDOR_MODEL,
    input_tokens: 2 * FAKE_USAGE.input,
    output_tokens: 2 * FAKE_USAGE.output,
    tool_calls: 1,
  });
  expect(stored.filter((row) => row.agent_id === builtin).every((row) => row.output_tokens > 0)).toBe(true);

  const priced = (rows: StoredReply[]) =>
    rows
      .filter((row) => row.model === VENDOR_MODEL)
      .reduce((sum, row) => sum + (row.input_tokens * 2.5 + row.output_tokens * 10) / 1e6, 0);
  const expected = (rows: StoredReply[]) => ({
    replies: rows.length,
    input_tokens: rows.reduce((sum, row) => sum + row.input_tokens, 0),
    output_tokens: rows.reduce((sum, row) => sum + row.output_tokens, 0),
    tool_calls: rows.reduce((sum, row) => sum + row.tool_calls, 0),
    // The fake reports part of the input as read from the prompt cache (CONTRACTS §24); without a
    // cached_input_per_mtok it costs as the rest of the input.
    cached_input_tokens: rows.reduce((sum, row) => sum + row.cached_input_tokens, 0),
    cost_usd: expect.closeTo(priced(rows), 9),
  });

  const byUser = await client().get('/usage?group_by=user');
  expect(byUser.status).toBe(200);
  expect(byUser.body).toEqual({
    rows: ['ann', 'bob'].map((user) => ({
      user_id: user,
      ...expected(stored.filter((row) => row.user_id === user)),
    })),
  });

  const byModel = await client().get('/usage?group_by=model');
  expect(byModel.body.rows).toEqual(
    ['builtin', VENDOR_MODEL].map((model) => ({
      model,
      ...expected(stored.filter((row) => row.model === model)),
    })),
  );

  const today = new Date().toISOString().slice(0, 10);
  const byDay = await client().get(`/usage?group_by=day&from=${today}&to=${today}`);
  expect(byDay.body.rows).toEqual([{ day: today, ...expected(stored) }]);

  const annOnBuiltin = await client().get(`/usage?group_by=agent&user_id=ann&agent_id=${builtin}`);
  expect(annOnBuiltin.body.rows).toEqual([
    {
      agent_id: builtin,
      ...expected(stored.filter((row) => row.user_id === 'ann' && row.agent_id === builtin)),
    },
  ]);

  expect((await client().get('/usage')).body.rows).toEqual([expected(stored)]);
  expect((await client().get('/usage?from=2001-01-01&to=2001-01-31')).body).toEqual({ rows: [] });
  // The other organization sees its own reply only.
  expect((await client(otherOrg).get('/usage?group_by=user')).body.rows).toEqual([
    expect.objectContaining({ user_id: 'ann', replies: 1, input_tokens: FAKE_USAGE.input }),
  ]);
});

it('refuses a grouping or a day it does not know, in the validation shape', async () => {
  const grouping = await client().get('/usage?group_by=week');
  expect(grouping.status).toBe(422);
  expect(grouping.body.detail[0]).toMatchObject({ type: 'enum', loc: ['query', 'group_by'] });
  const day = await client().get('/usage?from=2026-02-31');
  expect(day.status).toBe(422);
  expect(day.body.detail[0]).toMatchObject({ type: 'value_error', loc: ['query', 'from'] });
  expect((await client().get('/usage?to=yesterday')).status).toBe(422);
  expect((await api(deployment.url).get('/usage')).status).toBe(401);
});
