import { Redis } from 'ioredis';
import {
  decodeEvent,
  encodeEvent,
  EVENT_FIELD,
  RunEvent,
  runEventKeys,
  streamEntryId,
} from '@app/run-events';
import { admin, createAgent, createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';

/**
 * The agent runtime on real processes: a gateway, worker processes, PostgreSQL and Redis. Each reply is driven
 * by the builtin model's directives (CONTRACTS §6) and checked on its Redis stream and its final message.
 */
let environment: TestEnvironment;
let gateway: AppProcess;
const workers: AppProcess[] = [];
let redis: Redis;
let org: OrgFixture;
let agentId: string;
let client: ReturnType<typeof api>;
const USER = 'user-1';

interface Message {
  id: string;
  thread_id: string;
  content: string;
  status: string;
  live: boolean;
  error_code: string | null;
  questions: unknown;
  structured_output: unknown;
  events: Record<string, unknown>[] | null;
}

const workerEnv = { WORKER_HEALTH_PORT: '0', RUN_SWEEP_INTERVAL_MS: '1000', RUN_SWEEP_AFTER_MS: '3000' };

beforeAll(async () => {
  environment = await createTestEnvironment();
  redis = new Redis(environment.env.REDIS_URL!);
  [gateway] = await Promise.all([
    startGateway(environment.env),
    startWorker(environment.env, workerEnv).then((worker) => workers.push(worker)),
  ]);
  org = await createOrg(environment.env);
  agentId = (await createAgent(environment.env, org.org, ['--instructions', 'Be brief.'])).id;
  client = api(gateway.url!, org.key);
});

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([gateway?.stop(), ...workers.map((worker) => worker.stop())]);
  await environment?.dispose();
});

async function start(content: string, options: Record<string, unknown> = {}, agent = agentId) {
  const response = await client.post('/chat', {
    message: { content, ...(options.message as object) },
    options: { agent_id: agent, user_id: USER, ...options, message: undefined },
  });
  expect(response.status).toBe(200);
  return { threadId: response.body.id as string, replyId: response.body.messages[1].id as string };
}

async function events(messageId: string): Promise<RunEvent[]> {
  const entries = await redis.xrange(runEventKeys(environment.redisPrefix, messageId).stream, '-', '+');
  return entries.map(([, fields]) => decodeEvent(fields[fields.indexOf(EVENT_FIELD) + 1]));
}

/** The stream up to its message.completed line. */
async function completed(messageId: string, timeoutMs = 20000): Promise<RunEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const written = await events(messageId);
    if (written.some((event) => event.type === 'message.completed')) return written;
    if (Date.now() > deadline)
      throw new Error(`reply ${messageId} did not complete: ${JSON.stringify(written)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs a reply to its end and checks every invariant of its stream against the stored message. */
async function runToEnd(content: string, options: Record<string, unknown> = {}, agent = agentId) {
  const { threadId, replyId } = await start(content, options, agent);
  const stream = await completed(replyId);
  const thread = await client.get(`/chat/${threadId}?user_id=${USER}`);
  const message = thread.body.messages[1] as Message;
  expectConsistent(stream, message);
  return { stream, message, threadId };
}

function expectConsistent(stream: RunEvent[], message: Message): void {
  expect(stream.map((event) => event.seq)).toEqual(stream.map((_, index) => index));
  expect(stream[0]).toMatchObject({
    type: 'message.started',
    message_id: message.id,
    thread_id: message.thread_id,
  });
  const last = stream[stream.length - 1];
  expect(last.type).toBe('message.completed');
  expect(last.type === 'message.completed' && last.message).toEqual(message);
  const deltas = stream.flatMap((event) => (event.type === 'text.delta' ? [event.delta] : []));
  expect(deltas.join('')).toBe(message.content);
  expect(message.events).toEqual(
    stream.filter((event) => event.type !== 'text.delta' && event.type !== 'message.completed'),
  );
  expect(message.live).toBe(false);
}

const ofType = <T extends RunEvent['type']>(stream: RunEvent[], type: T) =>
  stream.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);

describe('agent runs', () => {
  it('answers a plain message a word at a time (joined on the way, CONTRACTS §5) and counts its tokens', async () => {
    const { stream, message } = await runToEnd('hello there');
    expect(message).toMatchObject({ status: 'success', content: 'You said: hello there', error_code: null });
    // Four words; produced at once, they may travel as fewer lines (runToEnd checks they join to the content).
    expect(ofType(stream, 'text.delta').length).toBeGreaterThanOrEqual(1);
    expect(ofType(stream, 'text.delta').length).toBeLessThanOrEqual(4);
    expect(ofType(stream, 'step.started').map((event) => event.step)).toEqual([1]);
    const [row] = await queryDatabase<{ usage_tokens: number }>(
      environment.databaseUrl,
      'SELECT usage_tokens FROM messages WHERE id = $1',
      [message.id],
    );
    expect(row.usage_tokens).toBeGreaterThan(4);
  });

  it('says exactly the /say text', async () => {
    const { message, stream } = await runToEnd('/say Exactly  this, please.');
    expect(message.content).toBe('Exactly  this, please.');
    // Streamed a word at a time, with its own spacing; words of one hold window travel joined (CONTRACTS §5).
    const deltas = ofType(stream, 'text.delta').map((event) => event.delta);
    expect(deltas.join('')).toBe('Exactly  this, please.');
    for (const delta of deltas) expect(['Exactly  ', 'this, ', 'please.'].join('')).toContain(delta);
  });

  it('runs one tool round per /tool line, then answers with each output', async () => {
    const { stream, message } = await runToEnd('/tool clock {}\n/tool nope {"a":1}');
    expect(ofType(stream, 'tool.call').map((event) => [event.step, event.name, event.arguments])).toEqual([
      [1, 'clock', {}],
      [2, 'nope', { a: 1 }],
    ]);
    const results = ofType(stream, 'tool.result');
    expect(results[0]).toMatchObject({
      step: 1,
      name: 'clock',
      is_error: false,
      output: { timezone: 'UTC' },
    });
    expect(results[1]).toMatchObject({
      step: 2,
      name: 'nope',
      is_error: true,
      output: 'tool nope is not available',
    });
    expect(message.status).toBe('success');
    expect(message.content).toContain((results[0].output as { now: string }).now);
    expect(message.content).toContain('tool nope is not available');
  });

  it('asks questions and returns structured output', async () => {
    const { stream, message } = await runToEnd('/ask Which color? | red | blue\n/json {"n": 1, "ok": true}');
    const questions = [{ prompt: 'Which color?', options: ['red', 'blue'] }];
    expect(message).toMatchObject({ status: 'success', questions, structured_output: { n: 1, ok: true } });
    expect(ofType(stream, 'questions')).toEqual([expect.objectContaining({ questions })]);
  });

  it('ends a failing model call with status error and a readable content', async () => {
    const { message } = await runToEnd('/fail');
    expect(message).toMatchObject({ status: 'error', error_code: null });
    expect(message.content).toMatch(/model failed.*\/fail/);
  });

  it.each([1, 3])('stops /loop after max_steps %i tool rounds, with success', async (maxSteps) => {
    const { stream, message } = await runToEnd('/loop', { max_steps: maxSteps });
    expect(ofType(stream, 'tool.call')).toHaveLength(maxSteps);
    expect(ofType(stream, 'tool.result').every((event) => event.name === 'clock' && !event.is_error)).toBe(
      true,
    );
    expect(ofType(stream, 'step.started').map((event) => event.step)).toEqual(
      Array.from({ length: maxSteps + 1 }, (_, index) => index + 1),
    );
    expect(message.status).toBe('success');
    expect(message.content.length).toBeGreaterThan(0);
  });

  it('ends with budget_exhausted once the agent spent its token budget, without a model call', async () => {
    const budgeted = await createAgent(environment.env, org.org, ['--token-budget', '5']);
    const first = await runToEnd('one two three four five six', {}, budgeted.id);
    expect(first.message.status).toBe('success');
    const second = await runToEnd('again', {}, budgeted.id);
    expect(second.message).toMatchObject({ status: 'error', error_code: 'budget_exhausted' });
    expect(ofType(second.stream, 'step.started')).toHaveLength(0);
    // An ended reply's tokens reach the agent's counter when the worker folds them (about once a second); the
    // gate above already counted them.
    const tokensUsed = async () => {
      const { agents } = await admin<{ agents: { id: string; tokens_used: number }[] }>(environment.env, [
        'agents:list',
        '--org',
        org.org,
      ]);
      return agents.find((agent) => agent.id === budgeted.id)?.tokens_used ?? 0;
    };
    const deadline = Date.now() + 10_000;
    let used = await tokensUsed();
    while (used < 6 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      used = await tokensUsed();
    }
    expect(used).toBeGreaterThanOrEqual(6);
  });

  it('does not run a tool the message disabled', async () => {
    const listed = await createAgent(environment.env, org.org, ['--tools', 'web,clock']);
    const { stream } = await runToEnd(
      '/tool web {"query":"x"}\n/tool clock {}',
      { message: { disabled_tools: ['web'] } },
      listed.id,
    );
    const results = ofType(stream, 'tool.result');
    expect(results[0]).toMatchObject({ name: 'web', is_error: true, output: 'tool web is not available' });
    expect(results[1]).toMatchObject({ name: 'clock', is_error: false });
  });

  /**
   * A follow-up to the first exchange of a new thread, stored an hour ago as rows only (as the gateway stores them:
   * on the thread's active branch, the reply shown as its leaf), with no job: the question `content`, its reply
   * in `status`. Answers the thread and the reply.
   */
  async function storedFollowUp(content: string, status: 'pending' | 'running') {
    const { threadId } = await start('first');
    await completed((await client.get(`/chat/${threadId}?user_id=${USER}`)).body.messages[1].id);
    const [question] = await queryDatabase<{ id: string }>(
      environment.databaseUrl,
      `INSERT INTO messages (id, thread_id, org_id, position, role, content, status, live, updated_at, parent_id)
       SELECT gen_random_uuid(), id, org_id, 2, 'user', $2, 'success', false, now() - interval '1 hour',
         active_leaf_id
       FROM threads WHERE id = $1 RETURNING id`,
      [threadId, content],
    );
    const [reply] = await queryDatabase<{ id: string }>(
      environment.databaseUrl,
      `WITH reply AS (
         INSERT INTO messages (id, thread_id, org_id, position, role, status, live, agent_id, reply_to_id, max_steps,
           updated_at, parent_id)
         SELECT gen_random_uuid(), id, org_id, 3, 'assistant', $3, true, agent_id, $2, 5,
           now() - interval '1 hour', $2
         FROM threads WHERE id = $1 RETURNING id),
       shown AS (UPDATE threads SET active_leaf_id = (SELECT id FROM reply) WHERE id = $1)
       SELECT id FROM reply`,
      [threadId, question.id, status],
    );
    return { threadId, reply };
  }

  it('runs a reply that was stored but never enqueued (the sweep gives it its job)', async () => {
    // A follow-up committed by a gateway that died before enqueueing it.
    const { reply } = await storedFollowUp('/say found again', 'pending');
    const stream = await completed(reply.id, 15000);
    const last = stream[stream.length - 1];
    expect(last.type === 'message.completed' && last.message).toMatchObject({
      status: 'success',
      content: 'found again',
    });
  });

  it('completes the stream of a stored step whose last lines a crash kept out of Redis', async () => {
    // A step and its lines are written side by side: here the step landed, its last delta did not.
    const { threadId, reply } = await storedFollowUp('/say hello there world', 'running');
    await queryDatabase(
      environment.databaseUrl,
      `INSERT INTO run_steps (message_id, step, text, usage_tokens, content_length, started_at)
       VALUES ($1, 1, 'hello there world', 7, 17, now())`,
      [reply.id],
    );
    const before: RunEvent[] = [
      { seq: 0, type: 'message.started', message_id: reply.id, thread_id: threadId },
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 2, type: 'text.delta', delta: 'hello ' },
      { seq: 3, type: 'text.delta', delta: 'there ' },
    ];
    const key = runEventKeys(environment.redisPrefix, reply.id).stream;
    for (const event of before)
      await redis.xadd(key, streamEntryId(event.seq), EVENT_FIELD, encodeEvent(event));

    const stream = await completed(reply.id, 15000);
    const thread = await client.get(`/chat/${threadId}?user_id=${USER}`);
    const message = thread.body.messages[3] as Message;
    expectConsistent(stream, message);
    expect(message).toMatchObject({ status: 'success', content: 'hello there world' });
    expect(stream.slice(0, before.length)).toEqual(before);
    expect(ofType(stream, 'step.started')).toHaveLength(1);
  });

  it('cancels the running reply when its thread is deleted, within a second', async () => {
    const { threadId, replyId } = await start(`/sleep 200\n/say ${'word '.repeat(100)}`);
    const deadline = Date.now() + 10000;
    while (ofType(await events(replyId), 'text.delta').length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const deletedAt = Date.now();
    expect((await client.delete(`/chat/${threadId}?user_id=${USER}`)).status).toBe(204);
    const stream = await completed(replyId, 5000);
    expect(Date.now() - deletedAt).toBeLessThan(1500);
    const last = stream[stream.length - 1];
    expect(last.type === 'message.completed' && last.message).toMatchObject({
      status: 'cancelled',
      live: false,
    });
    const deltas = ofType(stream, 'text.delta');
    expect(deltas.length).toBeLessThan(100);
    expect(last.type === 'message.completed' && last.message.content).toBe(
      deltas.map((e) => e.delta).join(''),
    );
  });

  it('resumes a reply on another worker after a crash, without repeating or losing a line', async () => {
    const words = Array.from({ length: 40 }, (_, index) => `w${index}`).join(' ');
    const { threadId, replyId } = await start(`/tool clock {}\n/sleep 100\n/say ${words}`);
    const deadline = Date.now() + 15000;
    while (ofType(await events(replyId), 'text.delta').length < 5 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await workers.shift()!.kill();
    const before = await events(replyId);
    expect(before[before.length - 1].type).not.toBe('message.completed');
    workers.push(await startWorker(environment.env, workerEnv));

    const stream = await completed(replyId, 30000);
    const thread = await client.get(`/chat/${threadId}?user_id=${USER}`);
    const message = thread.body.messages[1] as Message;
    expectConsistent(stream, message);
    expect(message).toMatchObject({ status: 'success', content: words });
    expect(stream.slice(0, before.length)).toEqual(before);
    expect(ofType(stream, 'message.started')).toHaveLength(1);
    expect(ofType(stream, 'tool.call')).toHaveLength(1);
    const calls = await queryDatabase<{ n: number }>(
      environment.databaseUrl,
      'SELECT count(*)::int AS n FROM tool_calls WHERE message_id = $1',
      [replyId],
    );
    expect(calls[0].n).toBe(1);
  });

  it('runs the replies of a thread one at a time, in order, across two workers', async () => {
    workers.push(await startWorker(environment.env, workerEnv));
    const { threadId, replyId } = await start('/sleep 30\n/say first reply here');
    // Posted back to back while the first reply still runs: each is queued behind the one before.
    const followUps: string[] = [];
    for (const word of ['second', 'third', 'fourth']) {
      const response = await client.post(`/chat/${threadId}`, {
        message: { content: `/sleep 30\n/say ${word} reply here` },
        options: { user_id: USER },
      });
      expect(response.status).toBe(200);
      followUps.push(response.body.id);
    }
    const replies = [replyId, ...followUps];
    for (const id of replies) await completed(id);
    const rows = await queryDatabase<{
      id: string;
      position: number;
      content: string;
      started: Date;
      completed_at: Date;
    }>(
      environment.databaseUrl,
      `SELECT m.id, m.position, m.content, m.completed_at,
              (SELECT min(started_at) FROM run_steps s WHERE s.message_id = m.id) AS started
       FROM messages m WHERE m.thread_id = $1 AND m.role = 'assistant' ORDER BY m.position`,
      [threadId],
    );
    expect(rows.map((row) => row.content.split(' ')[0])).toEqual(['first', 'second', 'third', 'fourth']);
    for (let index = 1; index < rows.length; index++) {
      expect(rows[index].started.getTime()).toBeGreaterThanOrEqual(rows[index - 1].completed_at.getTime());
    }
    // Each reply saw the thread up to its own user message: the builtin model read its own directives.
    const thread = await client.get(`/chat/${threadId}?user_id=${USER}`);
    expect(
      thread.body.messages
        .filter((m: Message & { role: string }) => m.role === 'assistant')
        .map((m: Message) => m.status),
    ).toEqual(['success', 'success', 'success', 'success']);
  });
});
