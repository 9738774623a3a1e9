import { useDeployment } from '../support/deployment';
import { startWorker } from '../support/processes';
import { deleteRedisKeys, queryDatabase } from '../support/test-environment';
import { storedStatus } from './replies.support';
import { Line, numbered, OpenStream, until } from './stream.support';

/**
 * A reply waiting for an approval (CONTRACTS §19) survives anything, because the wait is rows in PostgreSQL: its
 * worker SIGKILLed and Redis emptied while it waits, it is approved and completes on another worker with a
 * gap-free stream and no tool run twice; left unanswered past APPROVAL_TIMEOUT_SECONDS it is denied at its
 * deadline (a delayed job), and by the sweep of live replies, which needs no job in Redis, when that job is lost.
 */
const USER = 'approver';

const deployment = useDeployment({
  env: { STREAM_HEARTBEAT_MS: '300', RUN_SWEEP_INTERVAL_MS: '300', RUN_SWEEP_AFTER_MS: '500' },
});
let agentId: string;

beforeAll(async () => {
  const agent = await deployment.client().post('/agents', {
    name: 'Careful',
    approval_required: ['clock'],
  });
  agentId = agent.body.id as string;
});

async function start(): Promise<string> {
  const response = await deployment.client().post('/chat', {
    message: { content: '/tool clock {}' },
    options: { agent_id: agentId, user_id: USER },
  });
  return response.body.messages[1].id as string;
}

const streamOf = (replyId: string) =>
  new OpenStream(`${deployment.url}/chat/messages/${replyId}/stream?user_id=${USER}`, deployment.org.key);

const statusOf = (replyId: string) => storedStatus(deployment.environment.databaseUrl, replyId);

/** A person's approval of the reply's call `callId`, through the service. */
const approve = (replyId: string, callId: unknown) =>
  deployment.client().post(`/chat/messages/${replyId}/approvals`, {
    call_id: callId,
    decision: 'approve',
    user_id: USER,
  });

/** How many times the reply's tool ran. */
const toolCallsOf = (replyId: string) =>
  queryDatabase(deployment.environment.databaseUrl, 'SELECT 1 FROM tool_calls WHERE message_id = $1', [
    replyId,
  ]);

/**
 * Runs `test` with a worker whose approvals wait 2 s at most and whose sweep waits ten minutes, so that only the
 * deadline's own job can deny a call in time; the worker is stopped after.
 */
async function withDeadlineWorker(test: () => Promise<void>): Promise<void> {
  const worker = await startWorker(deployment.environment.env, {
    APPROVAL_TIMEOUT_SECONDS: '2',
    RUN_SWEEP_INTERVAL_MS: '600000',
  });
  try {
    await test();
  } finally {
    await worker.stop();
  }
}

function expectGapFree(lines: Line[]): void {
  expect(lines.map((line) => line.seq)).toEqual(lines.map((_, index) => index));
  expect(lines.at(-1)?.type).toBe('message.completed');
}

describe('a reply waiting for an approval', () => {
  it('completes on another worker after its worker is SIGKILLed and Redis loses everything', async () => {
    const first = await startWorker(deployment.environment.env);
    const replyId = await start();
    const before = streamOf(replyId);
    const requested = await before.waitFor((line) => line.type === 'approval.requested');
    await until(async () => (await statusOf(replyId)) === 'requires_action');
    await first.kill();
    await deleteRedisKeys(deployment.environment.redisPrefix);
    // A stream opened now finds no log: it waits (heartbeats) for the run that comes back.
    const after = streamOf(replyId);
    await after.waitFor((line) => line.type === 'heartbeat');

    const second = await startWorker(deployment.environment.env);
    try {
      const decided = await approve(replyId, requested.call_id);
      expect(decided.status).toBe(200);
      const [early, late] = [numbered(await before.all()), numbered(await after.all())];
      expectGapFree(late);
      // The stream that was open all along got the rest of the same lines.
      expect(early).toEqual(late);
      expect(late.map((line) => line.type).slice(0, 6)).toEqual([
        'message.started',
        'step.started',
        'tool.call',
        'approval.requested',
        'approval.decided',
        'tool.result',
      ]);
      expect((late.at(-1) as Line & { message: { status: string } }).message.status).toBe('success');
      expect(await toolCallsOf(replyId)).toHaveLength(1);
      expect(second.output).toMatch(/run started/);
    } finally {
      await second.stop();
    }
  }, 60000);

  it('is denied at its deadline, with no sweep passing', async () => {
    await withDeadlineWorker(async () => {
      const replyId = await start();
      const stream = streamOf(replyId);
      await stream.waitFor((line) => line.type === 'approval.requested');
      const requestedAt = Date.now();
      const decided = await stream.waitFor((line) => line.type === 'approval.decided', 15000);
      const waited = Date.now() - requestedAt;
      expect(decided).toMatchObject({ decision: 'deny' });
      expect(waited).toBeGreaterThan(1000);
      expect(waited).toBeLessThan(8000);
      const lines = numbered(await stream.all());
      expectGapFree(lines);
      expect((lines.at(-1) as Line & { message: { status: string } }).message.status).toBe('success');
    });
  }, 60000);

  it('is not denied at its deadline once a person approved it', async () => {
    await withDeadlineWorker(async () => {
      const replyId = await start();
      const stream = streamOf(replyId);
      const requested = await stream.waitFor((line) => line.type === 'approval.requested');
      await until(async () => (await statusOf(replyId)) === 'requires_action');
      const decision = await approve(replyId, requested.call_id);
      expect(decision.status).toBe(200);
      const lines = numbered(await stream.all());
      expectGapFree(lines);
      // Past the deadline: the ended reply is left as it is, its tool ran once.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      const [row] = await queryDatabase<{ status: string; events: Line[] }>(
        deployment.environment.databaseUrl,
        'SELECT status, events FROM messages WHERE id = $1',
        [replyId],
      );
      expect(row.status).toBe('success');
      expect(row.events.filter((line) => line.type === 'approval.decided')).toEqual([
        expect.objectContaining({ decision: 'approve' }),
      ]);
      expect(await toolCallsOf(replyId)).toHaveLength(1);
    });
  }, 60000);

  it('is denied when nobody answers within APPROVAL_TIMEOUT_SECONDS, even with Redis emptied', async () => {
    const worker = await startWorker(deployment.environment.env, { APPROVAL_TIMEOUT_SECONDS: '1' });
    try {
      const replyId = await start();
      const stream = streamOf(replyId);
      await stream.waitFor((line) => line.type === 'approval.requested');
      await until(async () => (await statusOf(replyId)) === 'requires_action');
      await deleteRedisKeys(deployment.environment.redisPrefix);
      const lines = numbered(await stream.all());
      expectGapFree(lines);
      expect(lines.find((line) => line.type === 'approval.decided')).toMatchObject({ decision: 'deny' });
      expect(lines.find((line) => line.type === 'tool.result')).toMatchObject({
        output: { denied: true, reason: 'No decision within the approval time-out.' },
      });
      expect((lines.at(-1) as Line & { message: { status: string } }).message.status).toBe('success');
    } finally {
      await worker.stop();
    }
  }, 60000);
});
