import { createOrg, OrgFixture } from '../factories/admin';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';
import { endUserReplies } from './replies.support';
import { Line, numbered, until } from './stream.support';

/**
 * The spending turn of a budgeted end user as a rule of when a reply runs (CONTRACTS §21, README "How a reply
 * runs"), on real processes with the builtin model (one token a word): a reply that finds the turn held is parked
 * (pending, no worker slot held, so another user's reply runs meanwhile) and is woken when the turn is given
 * back, its stream going on where it stopped; a parked reply that is cancelled ends `cancelled` at once, its usage
 * counted once.
 */
let environment: TestEnvironment;
let gateway: AppProcess;
let org: OrgFixture;

/**
 * Far above the bounds asserted here: a stream that falls silent asks PostgreSQL for the reply's end only after a
 * heartbeat's silence, so a short heartbeat would close a cancelled reply's stream whether or not its end reached
 * the reply's log.
 */
const HEARTBEAT_MS = 10000;

/**
 * How soon a parked reply handed the turn starts, and a cancelled one's stream ends: well under the 2 s a parked
 * reply's delayed job waits before it looks again, and the 15 s of the sweep of forgotten replies.
 */
const PROMPTLY_MS = 1000;

beforeAll(async () => {
  environment = await createTestEnvironment({ STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) });
  gateway = await startGateway(environment.env);
  org = await createOrg(environment.env);
}, 120000);

afterAll(async () => {
  await gateway?.stop();
  await environment?.dispose();
});

const { client, careful, start, streamOf } = endUserReplies(
  () => gateway.url!,
  () => org.key,
);

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

async function row(replyId: string) {
  const [stored] = await queryDatabase<{
    status: string;
    live: boolean;
    parked: boolean;
    usage_tokens: number;
    completed_at: Date | null;
  }>(
    environment.databaseUrl,
    `SELECT status, live, budget_turn_parked_at IS NOT NULL AS parked, usage_tokens, completed_at
     FROM messages WHERE id = $1`,
    [replyId],
  );
  return stored;
}

/** Waits until the reply is parked for its end user's spending turn: pending again, with the parked mark. */
async function parked(replyId: string): Promise<void> {
  await until(async () => {
    const stored = await row(replyId);
    return stored.status === 'pending' && stored.parked;
  }, 20000);
}

async function stepsOf(replyId: string) {
  return queryDatabase<{ step: number; started_at: Date; usage_tokens: number }>(
    environment.databaseUrl,
    'SELECT step, started_at, usage_tokens FROM run_steps WHERE message_id = $1 ORDER BY step',
    [replyId],
  );
}

/** A stream's numbered lines run 0, 1, 2 … without a gap or a repeat, with one `message.started`. */
function expectWhole(lines: Line[]): void {
  const seqs = numbered(lines).map((line) => line.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i));
  expect(lines.filter((line) => line.type === 'message.started')).toHaveLength(1);
}

const endOf = (lines: Line[]) => lines.at(-1) as Line & { message: { status: string; content: string } };

describe("a reply waiting for its end user's spending turn", () => {
  let workers: AppProcess[] = [];

  afterEach(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    workers = [];
  });

  it.each([
    { workers: 1, slots: 2 },
    { workers: 2, slots: 1 },
  ])(
    'holds no worker slot ($workers worker(s) of $slots slot(s)): another user runs meanwhile, and it runs once the turn is back',
    async (setup) => {
      for (let i = 0; i < setup.workers; i++)
        workers.push(await startWorker(environment.env, { AGENT_RUN_CONCURRENCY: String(setup.slots) }));
      const agent = await client().post('/agents', { name: `Plain ${setup.workers}x${setup.slots}` });
      const agentId = agent.body.id as string;
      const spender = `spender-${setup.workers}x${setup.slots}`;
      await client().put(`/budgets/users/${spender}`, { period: 'day', max_tokens: 1_000_000 });

      // A's one step takes about 8 s and holds the user's turn throughout.
      const a = await start(agentId, spender, `/say ${words(400)}\n/sleep 20`);
      const streamA = streamOf(a.replyId, spender);
      await streamA.waitFor((line) => line.type === 'text.delta');
      // B, the same user's, starts on the other slot and parks at once.
      const b = await start(agentId, spender, '/say after the turn');
      const streamB = streamOf(b.replyId, spender);
      await parked(b.replyId);

      // Every slot but A's is free: another user's reply runs to its end while A is still in its model call.
      const c = await start(agentId, `bystander-${setup.workers}x${setup.slots}`, '/say meanwhile');
      const linesC = await streamOf(c.replyId, `bystander-${setup.workers}x${setup.slots}`).all();
      expect(endOf(linesC).message.status).toBe('success');
      expect(await row(a.replyId)).toMatchObject({ live: true, status: 'running' });
      expect(await row(b.replyId)).toMatchObject({ live: true, status: 'pending', parked: true });

      // A gives the turn back as it ends; B is woken and runs its step after it.
      expect(endOf(await streamA.all()).message.status).toBe('success');
      const linesB = await streamB.all();
      expect(endOf(linesB).message).toMatchObject({ status: 'success', content: 'after the turn' });
      expectWhole(linesB);
      const [endedA, endedB] = [await row(a.replyId), await row(b.replyId)];
      expect(endedB).toMatchObject({ status: 'success', live: false, parked: false });
      const [stepB] = await stepsOf(b.replyId);
      expect(stepB.started_at.getTime()).toBeGreaterThanOrEqual(endedA.completed_at!.getTime());
      // A's ending handed B the turn and named it: B started at once, not when its delayed job looked again.
      expect(stepB.started_at.getTime() - endedA.completed_at!.getTime()).toBeLessThan(PROMPTLY_MS);
    },
    90000,
  );

  it('ends `cancelled` at once when cancelled while parked: its stream whole, its usage counted once', async () => {
    workers.push(await startWorker(environment.env, { AGENT_RUN_CONCURRENCY: '2' }));
    const agentId = await careful();
    await client().put('/budgets/users/parker', { period: 'day', max_tokens: 1_000_000 });

    // B's first step asks for the clock and waits for a person, its tokens stored with the step.
    const b = await start(agentId, 'parker', '/tool clock {}\n/say never said');
    const streamB = streamOf(b.replyId, 'parker');
    const requested = (await streamB.waitFor((line) => line.type === 'approval.requested')).call_id as string;
    // A (another thread of the user) is in a long model call, holding the turn, when B is approved.
    const a = await start(agentId, 'parker', `/say ${words(400)}\n/sleep 20`);
    const streamA = streamOf(a.replyId, 'parker');
    await streamA.waitFor((line) => line.type === 'text.delta');
    const decided = await client().post(`/chat/messages/${b.replyId}/approvals`, {
      call_id: requested,
      decision: 'approve',
      user_id: 'parker',
    });
    expect(decided.status).toBe(200);
    // B runs the clock, then parks before its second model call.
    await streamB.waitFor((line) => line.type === 'tool.result');
    await parked(b.replyId);
    const [stepOfB] = await stepsOf(b.replyId);

    // The gateway closes a pending reply itself: B ends while A still runs, its stream at once (its parked job is
    // run now, not when its delay is up, and writes the end to the reply's log).
    let streamEndedAt = 0;
    void streamB.ended.then(() => (streamEndedAt = Date.now()));
    expect((await client().delete(`/chat/${b.threadId}?user_id=parker`)).status).toBe(204);
    const answeredAt = Date.now();
    expect(await row(b.replyId)).toMatchObject({
      status: 'cancelled',
      live: false,
      usage_tokens: stepOfB.usage_tokens,
    });
    expect(await row(a.replyId)).toMatchObject({ live: true });
    const linesB = await streamB.all();
    expect(endOf(linesB).message.status).toBe('cancelled');
    expect(streamEndedAt - answeredAt).toBeLessThan(PROMPTLY_MS);
    expectWhole(linesB);
    expect(linesB.map((line) => line.type)).toContain('tool.result');

    // A runs to its end; B never ran again.
    expect(endOf(await streamA.all()).message.status).toBe('success');
    expect(await stepsOf(b.replyId)).toHaveLength(1);
    const [ended] = await queryDatabase<{ tokens: number; replies: number }>(
      environment.databaseUrl,
      `SELECT COALESCE(sum(m.usage_tokens), 0)::int AS tokens, count(*)::int AS replies
       FROM messages m JOIN threads t ON t.id = m.thread_id
       WHERE t.user_id = 'parker' AND m.role = 'assistant' AND NOT m.live`,
    );
    expect(ended.replies).toBe(2);
    const usage = (await client().get('/usage?group_by=user&user_id=parker')).body.rows as {
      replies: number;
      input_tokens: number;
      output_tokens: number;
    }[];
    expect(
      usage.map((sums) => ({ replies: sums.replies, tokens: sums.input_tokens + sums.output_tokens })),
    ).toEqual([{ replies: 2, tokens: ended.tokens }]);
    expect((await client().get('/budgets/users/parker')).body.used_tokens).toBe(ended.tokens);
    await until(async () => (await client().get(`/agents/${agentId}`)).body.tokens_used === ended.tokens);
  }, 90000);
});
