import { useDeployment } from '../support/deployment';
import { api } from '../support/http';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Feedback on replies on real processes (CONTRACTS §20): one rating per reply, replaced by a later one, scoped to
 * the reply's end user and organization, allowed to an end-user token for its own user's replies, listed newest
 * first with a cursor, and told to webhooks as `message.feedback`.
 */
const deployment = useDeployment({
  env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
  workers: 1,
  workerEnv: { WEBHOOK_SWEEP_INTERVAL_MS: '200' },
});
let agentId: string;
const receiver = new WebhookReceiver();
const events = receiver.delivered;

beforeAll(async () => {
  await receiver.listen();
  agentId = (await client().post('/agents', { name: 'Rated' })).body.id as string;
});

afterAll(() => receiver.close());

const client = () => deployment.client();

async function replyOf(userId: string): Promise<{ questionId: string; replyId: string }> {
  const started = await client().post('/chat', {
    message: { content: 'Rate me' },
    options: { agent_id: agentId, user_id: userId },
  });
  expect(started.status).toBe(200);
  return { questionId: started.body.messages[0].id, replyId: started.body.messages[1].id };
}

const feedbackOf = (replyId: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  api(deployment.url, headers ? undefined : deployment.org.key).put(
    `/chat/messages/${replyId}/feedback`,
    body,
    headers,
  );

it('keeps one rating per reply, its end user only, and tells webhooks', async () => {
  const hook = await client().post('/webhooks', {
    url: receiver.url,
    events: ['message.feedback'],
  });
  expect(hook.status).toBe(200);
  const ann = await replyOf('ann');

  const first = await feedbackOf(ann.replyId, { rating: -1, comment: 'Too long', user_id: 'ann' });
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({
    message_id: ann.replyId,
    agent_id: agentId,
    user_id: 'ann',
    rating: -1,
    comment: 'Too long',
  });
  const replaced = await feedbackOf(ann.replyId, { rating: 1 });
  expect(replaced.body).toMatchObject({ rating: 1, comment: null, created_at: first.body.created_at });
  expect((await client().get('/feedback')).body).toEqual([replaced.body]);

  // Another end user, a user message, an unknown id: 404 as if there were no such reply.
  expect((await feedbackOf(ann.replyId, { rating: 1, user_id: 'bob' })).status).toBe(404);
  expect((await feedbackOf(ann.questionId, { rating: 1 })).status).toBe(404);
  expect((await feedbackOf('0193a0c4-0000-7000-8000-000000000000', { rating: 1 })).status).toBe(404);
  const other = await deployment.createOrg();
  expect(
    (await deployment.client(other.key).put(`/chat/messages/${ann.replyId}/feedback`, { rating: 1 })).status,
  ).toBe(404);

  const deadline = Date.now() + 15000;
  while (events.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  // Two events, delivered each on its own: in either order.
  events.sort((a, b) => Number(a.data.rating) - Number(b.data.rating));
  expect(events.map((event) => [event.type, event.data.message_id, event.data.rating])).toEqual([
    ['message.feedback', ann.replyId, -1],
    ['message.feedback', ann.replyId, 1],
  ]);
  expect(events[0].data).toMatchObject({
    user_id: 'ann',
    comment: 'Too long',
    thread_id: first.body.thread_id,
  });
  expect(events[1].data).toEqual(replaced.body);
});

it('refuses a rating other than 1 or -1 and a comment over 2000 characters', async () => {
  const { replyId } = await replyOf('carol');
  const zero = await feedbackOf(replyId, { rating: 0 });
  expect(zero.status).toBe(422);
  expect(zero.body.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'rating'] });
  const long = await feedbackOf(replyId, { rating: 1, comment: 'x'.repeat(2001) });
  expect(long.status).toBe(422);
  expect(long.body.detail[0]).toMatchObject({ type: 'string_too_long', loc: ['body', 'comment'] });
  expect((await feedbackOf(replyId, {})).status).toBe(422);
});

it("lets an end-user token rate its own user's replies only, and not list the organization's", async () => {
  const minted = await client().post('/end-user-tokens', { user_id: 'dan' });
  expect(minted.status).toBe(200);
  const auth = { authorization: `Bearer ${minted.body.token as string}` };
  const dan = await replyOf('dan');
  const erin = await replyOf('erin');
  expect((await feedbackOf(dan.replyId, { rating: 1 }, auth)).body).toMatchObject({
    user_id: 'dan',
    rating: 1,
  });
  expect((await feedbackOf(erin.replyId, { rating: 1 }, auth)).status).toBe(404);
  expect((await feedbackOf(erin.replyId, { rating: 1, user_id: 'erin' }, auth)).status).toBe(403);
  expect((await api(deployment.url).get('/feedback', auth)).status).toBe(403);
});

it('lists newest reply first, by agent and time, a page at a time', async () => {
  const otherAgent = (await client().post('/agents', { name: 'Other' })).body.id as string;
  const started = await client().post('/chat', {
    message: { content: 'Elsewhere' },
    options: { agent_id: otherAgent, user_id: 'fay' },
  });
  const elsewhere = started.body.messages[1].id as string;
  expect((await feedbackOf(elsewhere, { rating: -1 })).status).toBe(200);

  const all = (await client().get('/feedback')).body as { message_id: string }[];
  expect(all[0].message_id).toBe(elsewhere);
  expect(all.map((row) => row.message_id)).toEqual([...all.map((row) => row.message_id)].sort().reverse());
  expect((await client().get(`/feedback?agent_id=${otherAgent}`)).body).toEqual([all[0]]);
  expect((await client().get(`/feedback?from=${new Date(Date.now() + 60000).toISOString()}`)).body).toEqual(
    [],
  );
  expect((await client().get('/feedback?from=yesterday')).status).toBe(422);

  const pages: string[] = [];
  let before: string | null = null;
  do {
    const page: { body: unknown; headers: Headers } = await client().get(
      `/feedback?limit=1${before ? `&before=${before}` : ''}`,
    );
    pages.push(...(page.body as { message_id: string }[]).map((row) => row.message_id));
    before = page.headers.get('x-next-cursor');
  } while (before);
  expect(pages).toEqual(all.map((row) => row.message_id));
});
