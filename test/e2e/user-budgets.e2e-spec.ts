import { useDeployment } from '../support/deployment';
import { queryDatabase } from '../support/test-environment';
import { startThread } from './replies.support';

/**
 * Token budgets per end user on real processes (CONTRACTS §20), with the builtin model (it counts words): a user
 * who spent the day's budget gets replies that end `budget_exhausted` before any model call, another user of the
 * same agent does not; two replies of one user racing at the edge overspend by one reply at most.
 */
const deployment = useDeployment({ workers: 1 });
let agentId: string;

beforeAll(async () => {
  const agent = await client().post('/agents', { name: 'Budgeted' });
  agentId = agent.body.id as string;
});

const client = () => deployment.client();

interface EndedReply {
  id: string;
  status: string;
  error_code: string | null;
  usage_tokens: number;
}

/** A new thread of `userId`, its reply awaited to its end, as GET /chat/{id} shows it. */
async function reply(
  userId: string,
  content = 'Please answer this question in a few words',
): Promise<EndedReply> {
  const { threadId, replyId } = await startThread(client(), agentId, userId, content);
  await (
    await fetch(`${deployment.url}/chat/messages/${replyId}/stream`, {
      headers: { 'x-service-token': deployment.org.key },
      signal: AbortSignal.timeout(30000),
    })
  ).text();
  const thread = await client().get(`/chat/${threadId}?user_id=${userId}`);
  const ended = thread.body.messages.find((message: { id: string }) => message.id === replyId);
  const [stored] = await queryDatabase<{ usage_tokens: number }>(
    deployment.environment.databaseUrl,
    'SELECT usage_tokens FROM messages WHERE id = $1',
    [replyId],
  );
  return {
    id: replyId,
    status: ended.status,
    error_code: ended.error_code,
    usage_tokens: stored.usage_tokens,
  };
}

it('sets, shows and removes a budget, refusing what it cannot hold', async () => {
  const put = await client().put('/budgets/users/shown', { period: 'month', max_tokens: 5000 });
  expect(put.status).toBe(200);
  expect(put.body).toEqual({
    user_id: 'shown',
    period: 'month',
    max_tokens: 5000,
    used_tokens: 0,
    period_start: `${new Date().toISOString().slice(0, 8)}01`,
  });
  expect((await client().get('/budgets/users/shown')).body).toEqual(put.body);
  const replaced = await client().put('/budgets/users/shown', { period: 'day', max_tokens: 10 });
  expect(replaced.body).toMatchObject({ period: 'day', max_tokens: 10 });

  const bad = await client().put('/budgets/users/shown', { period: 'week', max_tokens: -1 });
  expect(bad.status).toBe(422);
  expect(bad.body.detail.map((issue: { loc: string[] }) => issue.loc)).toEqual([
    ['body', 'period'],
    ['body', 'max_tokens'],
  ]);

  expect((await client().delete('/budgets/users/shown')).status).toBe(204);
  expect((await client().get('/budgets/users/shown')).status).toBe(404);
  expect((await client().delete('/budgets/users/shown')).status).toBe(404);
  // Another organization's key sees none of it.
  const other = await deployment.createOrg();
  await client().put('/budgets/users/shown', { period: 'day', max_tokens: 10 });
  expect((await deployment.client(other.key).get('/budgets/users/shown')).status).toBe(404);
});

it('stops a user who spent the period and not another; removing the budget lets the user go on', async () => {
  await client().put('/budgets/users/capped', { period: 'day', max_tokens: 1 });
  const first = await reply('capped');
  expect(first.status).toBe('success');
  expect(first.usage_tokens).toBeGreaterThan(1);
  expect((await client().get('/budgets/users/capped')).body.used_tokens).toBe(first.usage_tokens);

  const stopped = await reply('capped');
  expect(stopped).toMatchObject({ status: 'error', error_code: 'budget_exhausted', usage_tokens: 0 });
  expect((await reply('free')).status).toBe('success');

  expect((await client().delete('/budgets/users/capped')).status).toBe(204);
  expect((await reply('capped')).status).toBe('success');
});

it('lets two replies of one user racing at the edge overspend by one reply at most', async () => {
  await client().put('/budgets/users/racer', { period: 'day', max_tokens: 1 });
  const replies = await Promise.all([reply('racer'), reply('racer'), reply('racer')]);
  expect(replies.map((ended) => ended.status).sort()).toEqual(['error', 'error', 'success']);
  const spent = (await client().get('/budgets/users/racer')).body.used_tokens as number;
  const largest = Math.max(...replies.map((ended) => ended.usage_tokens));
  expect(spent - 1).toBeLessThanOrEqual(largest);
});
