import { createOrg, OrgFixture } from '../factories/admin';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';
import { startAiSdkChat, stopAiSdkChat } from './ai-sdk-chat.support';
import { endUserReplies } from './replies.support';
import { Line, numbered, until } from './stream.support';

/**
 * CONTRACTS §21 on real processes, with the builtin model (one token a word) and agents whose `clock` calls wait
 * for a person: a reply that ends while it waits (archived, interrupted, stopped) has the tokens its first step
 * spent counted, once, in its row, GET /usage, its user's budget and its agent's counter; replies of one budgeted
 * user (one waiting, one running) overspend the budget by one reply at most; a decision after the approval's
 * deadline is 409 and the call is denied, never run.
 */
let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess | null = null;
let org: OrgFixture;

beforeAll(async () => {
  environment = await createTestEnvironment({ STREAM_HEARTBEAT_MS: '300' });
  gateway = await startGateway(environment.env);
  org = await createOrg(environment.env);
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await environment?.dispose();
});

/** The worker every test but the deadline's uses. */
async function defaultWorker(): Promise<void> {
  worker ??= await startWorker(environment.env);
}

const { client, careful, start, streamOf } = endUserReplies(
  () => gateway.url!,
  () => org.key,
);

async function row(replyId: string) {
  const [stored] = await queryDatabase<{
    status: string;
    live: boolean;
    usage_tokens: number;
    error_code: string | null;
  }>(environment.databaseUrl, 'SELECT status, live, usage_tokens, error_code FROM messages WHERE id = $1', [
    replyId,
  ]);
  return stored;
}

/** Waits until the reply waits for a person; answers the tokens its stored steps spent. */
async function waitingWithSpent(replyId: string): Promise<number> {
  await until(async () => (await row(replyId)).status === 'requires_action', 20000);
  const [spent] = await queryDatabase<{ n: number }>(
    environment.databaseUrl,
    'SELECT COALESCE(sum(usage_tokens), 0)::int AS n FROM run_steps WHERE message_id = $1',
    [replyId],
  );
  expect(spent.n).toBeGreaterThan(0);
  return spent.n;
}

/**
 * What every count holds of `userId` (one agent of their own): GET /usage's tokens and replies, the budget's
 * used tokens, the agent's counter (folded in about once a second), and the sums of the user's ended rows.
 */
async function countsOf(userId: string, agentId: string) {
  const [ended] = await queryDatabase<{ tokens: number; replies: number }>(
    environment.databaseUrl,
    `SELECT COALESCE(sum(m.usage_tokens), 0)::int AS tokens, count(*)::int AS replies
     FROM messages m JOIN threads t ON t.id = m.thread_id
     WHERE t.user_id = $1 AND m.role = 'assistant' AND NOT m.live`,
    [userId],
  );
  const usage = (await client().get(`/usage?group_by=user&user_id=${userId}`)).body.rows as {
    replies: number;
    input_tokens: number;
    output_tokens: number;
  }[];
  const budget = (await client().get(`/budgets/users/${userId}`)).body.used_tokens as number;
  await until(async () => (await client().get(`/agents/${agentId}`)).body.tokens_used === ended.tokens);
  return {
    ended,
    usage: usage.map((sums) => ({ replies: sums.replies, tokens: sums.input_tokens + sums.output_tokens })),
    budget,
  };
}

describe('a reply ended while it waits for an approval is counted, once', () => {
  beforeAll(defaultWorker);

  async function expectCounted(userId: string, agentId: string, replyId: string, spent: number, replies = 1) {
    await until(async () => !(await row(replyId)).live);
    expect(await row(replyId)).toMatchObject({ status: 'cancelled', usage_tokens: spent });
    const counts = await countsOf(userId, agentId);
    expect(counts.ended.replies).toBe(replies);
    expect(counts.usage).toEqual([{ replies, tokens: counts.ended.tokens }]);
    expect(counts.budget).toBe(counts.ended.tokens);
    expect(counts.ended.tokens).toBeGreaterThanOrEqual(spent);
  }

  it('archived', async () => {
    const agentId = await careful();
    await client().put('/budgets/users/archiver', { period: 'day', max_tokens: 100000 });
    const { threadId, replyId } = await start(agentId, 'archiver', '/tool clock {}');
    const spent = await waitingWithSpent(replyId);
    expect((await client().delete(`/chat/${threadId}?user_id=archiver`)).status).toBe(204);
    await expectCounted('archiver', agentId, replyId, spent);
  });

  it('interrupted by a follow-up', async () => {
    const agentId = await careful();
    await client().put('/budgets/users/interrupter', { period: 'day', max_tokens: 100000 });
    const { threadId, replyId } = await start(agentId, 'interrupter', '/tool clock {}');
    const spent = await waitingWithSpent(replyId);
    const followUp = await client().post(`/chat/${threadId}`, {
      message: { content: '/say done' },
      options: { user_id: 'interrupter', multitask_strategy: 'interrupt' },
    });
    expect(followUp.status).toBe(200);
    const lines = await streamOf(followUp.body.id as string, 'interrupter').all();
    expect((lines.at(-1) as Line & { message: { status: string } }).message.status).toBe('success');
    await expectCounted('interrupter', agentId, replyId, spent, 2);
  });

  it("stopped through the AI SDK's stop", async () => {
    const agentId = await careful();
    await client().put('/budgets/users/stopper', { period: 'day', max_tokens: 100000 });
    const chat = await startAiSdkChat(gateway.url!, client(), 'stopper', agentId, '/tool clock {}');
    const replyId = chat.replyId;
    const spent = await waitingWithSpent(replyId);
    const stopped = await stopAiSdkChat(gateway.url!, chat);
    expect(stopped.status).toBe(204);
    await expectCounted('stopper', agentId, replyId, spent);
  });
});

describe("a budgeted end user's replies", () => {
  beforeAll(defaultWorker);

  it('overspend the budget by one reply at most, one waiting for an approval and one running', async () => {
    const agentId = await careful();
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    // A's first step (about 260 tokens: its message is long) stays under the budget and waits for a person.
    const budget = 300;
    await client().put('/budgets/users/racer', { period: 'day', max_tokens: budget });
    const a = await start(agentId, 'racer', `/tool clock {}\n/say ${words(200)}\n/sleep 10`);
    const spentByA = await waitingWithSpent(a.replyId);
    expect(spentByA).toBeLessThan(budget);

    // B (another thread) starts under the budget and takes about 3 s on its one long step; A is approved while
    // B's step is under way. A's next step must wait for it and then see the budget spent.
    const b = await start(agentId, 'racer', `/say ${words(200)}\n/sleep 15`);
    const streamB = streamOf(b.replyId, 'racer');
    await streamB.waitFor((line) => line.type === 'text.delta');
    const requested = (
      await streamOf(a.replyId, 'racer').waitFor((line) => line.type === 'approval.requested')
    ).call_id as string;
    const decided = await client().post(`/chat/messages/${a.replyId}/approvals`, {
      call_id: requested,
      decision: 'approve',
      user_id: 'racer',
    });
    expect(decided.status).toBe(200);
    await streamB.all();
    await until(async () => !(await row(a.replyId)).live, 20000);

    const [endedA, endedB] = [await row(a.replyId), await row(b.replyId)];
    expect(endedB).toMatchObject({ status: 'success' });
    expect(endedA).toMatchObject({ status: 'error', error_code: 'budget_exhausted', usage_tokens: spentByA });
    const spent = (await client().get('/budgets/users/racer')).body.used_tokens as number;
    expect(spent).toBe(endedA.usage_tokens + endedB.usage_tokens);
    expect(spent - budget).toBeLessThanOrEqual(Math.max(endedA.usage_tokens, endedB.usage_tokens));
  }, 60000);
});

describe("a decision after the approval's deadline", () => {
  beforeAll(async () => {
    await worker?.stop();
    worker = null;
  });

  it('is 409 Approval expired, and the call is denied, never run', async () => {
    // No worker runs while the deadline passes: neither the deadline's job nor a sweep can deny the call first.
    const shortWait = { APPROVAL_TIMEOUT_SECONDS: '2', RUN_SWEEP_INTERVAL_MS: '600000' };
    const agentId = await careful();
    const first = await startWorker(environment.env, shortWait);
    let replyId = '';
    let callId = '';
    try {
      ({ replyId } = await start(agentId, 'late', '/tool clock {}'));
      callId = (await streamOf(replyId, 'late').waitFor((line) => line.type === 'approval.requested'))
        .call_id as string;
      await waitingWithSpent(replyId);
    } finally {
      await first.stop();
    }
    const [approval] = await queryDatabase<{ wait_ms: number }>(
      environment.databaseUrl,
      `SELECT GREATEST(0, extract(epoch FROM expires_at - now()) * 1000)::int AS wait_ms FROM tool_approvals
       WHERE message_id = $1`,
      [replyId],
    );
    await new Promise((resolve) => setTimeout(resolve, approval.wait_ms + 200));

    const late = await client().post(`/chat/messages/${replyId}/approvals`, {
      call_id: callId,
      decision: 'approve',
      user_id: 'late',
    });
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ detail: 'Approval expired' });
    const [stored] = await queryDatabase<{ decision: string }>(
      environment.databaseUrl,
      'SELECT decision FROM tool_approvals WHERE message_id = $1',
      [replyId],
    );
    expect(stored.decision).toBe('deny');

    // A worker resumes the reply: the model gets the denial, the tool never runs.
    worker = await startWorker(environment.env, shortWait);
    const lines = numbered(await streamOf(replyId, 'late').all());
    expect(lines.find((line) => line.type === 'approval.decided')).toMatchObject({ decision: 'deny' });
    expect(lines.find((line) => line.type === 'tool.result')).toMatchObject({ output: { denied: true } });
    expect((lines.at(-1) as Line & { message: { status: string } }).message.status).toBe('success');
    const calls = await queryDatabase<{ output: { denied?: boolean } }>(
      environment.databaseUrl,
      'SELECT output FROM tool_calls WHERE message_id = $1',
      [replyId],
    );
    expect(calls.map((call) => call.output.denied)).toEqual([true]);
  }, 60000);
});
