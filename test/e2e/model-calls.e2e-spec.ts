import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResult, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { runEventKeys } from '@app/run-events';
import { useDeployment } from '../support/deployment';
import { FakeAnthropic } from '../support/fake-anthropic';
import { FAKE_USAGE, FakeOpenAI, FakeVendor, RecordedRequest } from '../support/fake-openai';
import { queryDatabase } from '../support/test-environment';
import { startThread } from './replies.support';
import { contentOf, Line, ofType, readStream as readWholeStream, Reply, runReply } from './models.support';
import { until } from './stream.support';

/**
 * Model calls that hold (CONTRACTS §24) on real processes, with local fakes of both vendors: a step that fails
 * before its first delta moves to the agent's fallback model, one that fails after it does not; requests carry
 * the vendors' prompt cache marks and the cached tokens are summed and priced; guardrails redact or block the
 * user's message before any model sees it, stop a streamed reply and withdraw its text, and block when the
 * moderation model cannot answer.
 */
const OPENAI_KEY = 'sk-openai-model-calls-1234';
const ANTHROPIC_KEY = 'sk-ant-model-calls-5678';
const CLAUDE = 'anthropic:claude-e2e';
const PRICES = { [CLAUDE]: { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3 } };
const BLOCKED_TEXT = 'A guardrail blocked this reply.';

const openai = new FakeOpenAI(OPENAI_KEY);
const anthropic = new FakeAnthropic(ANTHROPIC_KEY);

beforeAll(() => Promise.all([openai.start(), anthropic.start()]));
const deployment = useDeployment({
  env: { MODEL_PRICES: JSON.stringify(PRICES) },
  workers: 1,
  workerEnv: () => ({
    WORKER_HEALTH_PORT: '0',
    ...openai.workerEnv(),
    ...anthropic.workerEnv(),
    MODEL_MAX_RETRIES: '1',
    MODEL_RETRY_BASE_MS: '20',
  }),
});

afterAll(() => Promise.all([openai.close(), anthropic.close()]));

const client = () => deployment.client();

/** An agent made over HTTP, as a tenant makes it. */
async function agentWith(body: Record<string, unknown>): Promise<string> {
  const response = await client().post('/agents', { name: `agent ${Math.random()}`, ...body });
  expect(response.status).toBe(200);
  return response.body.id as string;
}

const run = (agentId: string, content: string) =>
  runReply(deployment.url, deployment.org.key, agentId, content);

/** A follow-up in the thread, read to its end like runReply. */
async function followUp(threadId: string, content: string): Promise<Reply> {
  const posted = await client().post(`/chat/${threadId}`, { message: { content } });
  expect(posted.status).toBe(200);
  const lines = await readStream(posted.body.id);
  return { threadId, lines, message: lines[lines.length - 1].message };
}

const requestsWith = (vendor: FakeVendor, text: string): RecordedRequest[] =>
  vendor.requests.filter((request) => JSON.stringify(request.body.messages).includes(text));

const storedReply = async (messageId: string) =>
  (
    await queryDatabase<{
      model: string;
      usage_tokens: number;
      input_tokens: number;
      cached_input_tokens: number;
      content: string;
    }>(
      deployment.environment.databaseUrl,
      'SELECT model, usage_tokens, input_tokens, cached_input_tokens, content FROM messages WHERE id = $1',
      [messageId],
    )
  )[0];

/**
 * What a reader that followed a stopped reply joined: words streamed before the stop, as far as it read them
 * before the withdrawal emptied them in the log (any of them, or none), never the blocked term or what came after
 * it, then the closing words.
 */
function expectWithdrawnLive(streamed: string): void {
  expect(streamed.endsWith(BLOCKED_TEXT)).toBe(true);
  expect('Vendor says: the password is '.startsWith(streamed.slice(0, -BLOCKED_TEXT.length))).toBe(true);
}

/** Every line of a reply's stream, read to its end. */
const readStream = (replyId: string) => readWholeStream(deployment.url, deployment.org.key, replyId);

/** Redis no longer holds the reply's log (its TTL passed): replays come from PostgreSQL. */
async function dropRedisLog(replyId: string): Promise<void> {
  const redis = new Redis(deployment.environment.env.REDIS_URL!);
  try {
    await redis.del(runEventKeys(deployment.environment.env.REDIS_PREFIX!, replyId).stream);
  } finally {
    redis.disconnect();
  }
}

const guardrailLines = (reply: Reply) =>
  ofType(reply.lines, 'guardrail.triggered').map(({ stage, kind, action }) => ({ stage, kind, action }));

describe('fallback models', () => {
  let agentId: string;

  beforeAll(async () => {
    // Made with the admin CLI: the flag and the HTTP field are the same DTO.
    const agent = await deployment.createAgent(['--model', 'openai:gpt-e2e', '--fallback-models', CLAUDE]);
    agentId = agent.id;
    expect(agent).toMatchObject({ fallback_models: [CLAUDE] });
  });

  it('answers with the fallback model after the first one is rate limited past its retries', async () => {
    const reply = await run(agentId, 'status 429 @gpt-e2e');
    expect(reply.message).toMatchObject({ status: 'success', content: 'Vendor says: status 429 @gpt-e2e' });
    // The resilience middleware's attempts come first (MODEL_MAX_RETRIES=1), then one call to the fallback.
    expect(requestsWith(openai, 'status 429 @gpt-e2e')).toHaveLength(2);
    expect(requestsWith(anthropic, 'status 429 @gpt-e2e')).toHaveLength(1);
    const [fallback] = ofType(reply.lines, 'model.fallback');
    expect(fallback).toMatchObject({ step: 1, from: 'openai:gpt-e2e', to: CLAUDE });
    expect(fallback.reason).toMatch(/rate limiting us \(429\)/);
    // Before the step's text, and kept in Message.events.
    expect(fallback.seq).toBeLessThan(ofType(reply.lines, 'text.delta')[0].seq!);
    expect(reply.message.events).toContainEqual(fallback);
    expect((await storedReply(reply.message.id)).model).toBe(CLAUDE);
    const usage = await client().get(`/usage?group_by=model&agent_id=${agentId}`);
    expect(usage.body.rows).toEqual([
      expect.objectContaining({
        model: CLAUDE,
        replies: 1,
        input_tokens: FAKE_USAGE.input,
        output_tokens: FAKE_USAGE.output,
      }),
    ]);
  });

  it('does not move to the fallback model once the first one streamed a delta', async () => {
    const reply = await run(agentId, 'cut');
    expect(reply.message.status).toBe('error');
    expect(reply.message.content).toMatch(/^Partial answer\n\nThe model failed: openai:gpt-e2e: /);
    expect(ofType(reply.lines, 'model.fallback')).toEqual([]);
    expect(requestsWith(openai, '"cut"')).toHaveLength(1);
    expect(requestsWith(anthropic, '"cut"')).toHaveLength(0);
  });
});

describe('prompt caching', () => {
  it('marks instructions, tools and older history for Anthropic; cached tokens are summed and priced', async () => {
    const agentId = await agentWith({ model: CLAUDE, instructions: 'Be brief.', tools: ['clock'] });
    const first = await run(agentId, 'cache first turn');
    const second = await followUp(first.threadId, 'cache second turn');
    expect(second.message.status).toBe('success');
    const [request] = requestsWith(anthropic, 'cache second turn');
    const { system, tools, messages } = request.body;
    expect(system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    // The first turn's answer closes the older history; the new message is after the breakpoint.
    expect(messages.at(-2)).toMatchObject({ role: 'assistant' });
    expect(messages.at(-2).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(JSON.stringify(messages.at(-1))).not.toContain('cache_control');
    for (const reply of [first, second]) {
      expect(await storedReply(reply.message.id)).toMatchObject({
        input_tokens: FAKE_USAGE.input,
        cached_input_tokens: FAKE_USAGE.cached,
      });
    }
    const usage = await client().get(`/usage?agent_id=${agentId}`);
    const uncached = FAKE_USAGE.input - FAKE_USAGE.cached;
    const price = PRICES[CLAUDE];
    expect(usage.body.rows).toEqual([
      expect.objectContaining({ replies: 2, input_tokens: 200, cached_input_tokens: 2 * FAKE_USAGE.cached }),
    ]);
    expect(usage.body.rows[0].cost_usd).toBeCloseTo(
      (2 *
        (uncached * price.input_per_mtok +
          FAKE_USAGE.cached * price.cached_input_per_mtok +
          FAKE_USAGE.output * price.output_per_mtok)) /
        1e6,
      12,
    );
  });

  it('keys OpenAI-compatible requests by the thread: prompt_cache_key', async () => {
    const agentId = await agentWith({ model: 'openai:gpt-e2e' });
    const reply = await run(agentId, 'cache key check');
    const [request] = requestsWith(openai, 'cache key check');
    expect(request.body.prompt_cache_key).toBe(reply.threadId);
    expect(await storedReply(reply.message.id)).toMatchObject({ cached_input_tokens: FAKE_USAGE.cached });
  });
});

describe('guardrails', () => {
  it('redacts PII before the vendor sees it, and leaves a card number failing Luhn alone', async () => {
    const agentId = await agentWith({ model: 'openai:gpt-e2e', guardrails: { pii: 'redact' } });
    const reply = await run(
      agentId,
      'redact-check: mail jane.doe@example.com, card 4111 1111 1111 1111, not a card 4111 1111 1111 1112, ' +
        'IBAN DE89 3704 0044 0532 0130 00, phone +49 30 1234567',
    );
    expect(reply.message.status).toBe('success');
    const [request] = requestsWith(openai, 'redact-check');
    const sent = JSON.stringify(request.body.messages);
    expect(sent).toContain(
      'mail [EMAIL], card [CARD], not a card 4111 1111 1111 1112, IBAN [IBAN], phone [PHONE]',
    );
    expect(sent).not.toContain('jane.doe@example.com');
    expect(guardrailLines(reply)).toEqual(
      ['email', 'iban', 'card', 'phone'].map((kind) => ({ stage: 'input', kind, action: 'redacted' })),
    );
  });

  it('blocks a message with PII or a blocked term before any model call', async () => {
    const agentId = await agentWith({
      model: 'openai:gpt-e2e',
      guardrails: { pii: 'block', blocked_terms: ['Project Falcon'] },
    });
    for (const [text, kind] of [
      ['block-check reach me at jo@example.org', 'email'],
      ['block-check tell me about project falcon', 'blocked_term'],
    ]) {
      const reply = await run(agentId, text);
      expect(reply.message).toMatchObject({
        status: 'error',
        error_code: 'guardrail_blocked',
        content: BLOCKED_TEXT,
      });
      expect(guardrailLines(reply)).toEqual([{ stage: 'input', kind, action: 'blocked' }]);
      expect(ofType(reply.lines, 'step.started')).toEqual([]);
    }
    expect(requestsWith(openai, 'block-check')).toEqual([]);
  });

  it('stops a streamed reply at a blocked term and withdraws its text from the stored content', async () => {
    const agentId = await agentWith({
      model: 'openai:gpt-e2e',
      guardrails: { pii: 'off', blocked_terms: ['swordfish'] },
    });
    // The fake answers `Vendor says: the password is swordfish, goodbye now`: the term is in the reply only.
    const reply = await run(agentId, 'reverse won eybdoog ,hsifdrows si drowssap eht');
    expectWithdrawnLive(contentOf(reply.lines));
    expect(guardrailLines(reply)).toEqual([{ stage: 'output', kind: 'blocked_term', action: 'blocked' }]);
    expect(reply.message).toMatchObject({
      status: 'error',
      error_code: 'guardrail_blocked',
      content: BLOCKED_TEXT,
    });
    expect((await storedReply(reply.message.id)).content).toBe(BLOCKED_TEXT);
    // Each withdrawn delta is stored as an empty one: a replay from PostgreSQL keeps every seq, not the text.
    const [{ delta_lengths: lengths }] = await queryDatabase<{ delta_lengths: number[] }>(
      deployment.environment.databaseUrl,
      'SELECT delta_lengths FROM messages WHERE id = $1',
      [reply.message.id],
    );
    expect(lengths).toHaveLength(ofType(reply.lines, 'text.delta').length);
    expect(lengths.slice(0, -1).every((length) => length === 0)).toBe(true);
    expect(lengths.at(-1)).toBe(BLOCKED_TEXT.length);
    const thread = await client().get(`/chat/${reply.threadId}`);
    expect(thread.body.messages[1].content).toBe(BLOCKED_TEXT);
  });

  it('counts what a step stopped by an output guardrail spent, as any ended reply, and never replays its text', async () => {
    const agentId = await agentWith({
      model: 'openai:gpt-e2e',
      guardrails: { pii: 'off', blocked_terms: ['swordfish'] },
    });
    const userId = 'guard-spender';
    expect(
      (await client().put(`/budgets/users/${userId}`, { period: 'day', max_tokens: 100000 })).status,
    ).toBe(200);
    const { replyId } = await startThread(
      client(),
      agentId,
      userId,
      'reverse won eybdoog ,hsifdrows si drowssap eht',
    );
    const live = await readStream(replyId);
    expectWithdrawnLive(contentOf(live));
    const message = live.at(-1)!.message;
    expect(message).toMatchObject({
      status: 'error',
      error_code: 'guardrail_blocked',
      content: BLOCKED_TEXT,
    });

    // The vendor reported its usage at the end of the call, after the stop: the call was read to its end for it.
    const perCall = FAKE_USAGE.input + FAKE_USAGE.output;
    expect(await storedReply(replyId)).toMatchObject({
      model: 'openai:gpt-e2e',
      usage_tokens: perCall,
      input_tokens: FAKE_USAGE.input,
    });
    const usage = await client().get(`/usage?group_by=user&user_id=${userId}`);
    expect(usage.body.rows).toEqual([
      expect.objectContaining({
        user_id: userId,
        replies: 1,
        input_tokens: FAKE_USAGE.input,
        output_tokens: FAKE_USAGE.output,
      }),
    ]);
    expect((await client().get(`/budgets/users/${userId}`)).body.used_tokens).toBe(perCall);
    await until(async () => (await client().get(`/agents/${agentId}`)).body.tokens_used === perCall);

    // Opened again once the reply ended, the stream (from the Redis log, then from PostgreSQL) replays no
    // withdrawn word: the same seqs, every one, with deltas that join to the stored content.
    const replayed = await readStream(replyId);
    expect(replayed.map((line) => line.seq)).toEqual(live.map((_, index) => index));
    expect(replayed.map((line) => line.type)).toEqual(live.map((line) => line.type));
    expect(contentOf(replayed)).toBe(BLOCKED_TEXT);
    expect(JSON.stringify(replayed)).not.toMatch(/password|swordfish/);
    await dropRedisLog(replyId);
    const fromPostgres = await readStream(replyId);
    const deltas = (lines: Line[]) => lines.map((line) => [line.seq, line.type, line.delta]);
    expect(deltas(fromPostgres)).toEqual(deltas(replayed));
  });

  it('rewrites the PII the model writes under redact: no delta and no stored text carries it', async () => {
    const agentId = await agentWith({ model: 'openai:gpt-e2e', guardrails: { pii: 'redact' } });
    // The fake answers `Vendor says: card 4111 1111 1111 1111, mail jane@example.com, bye`; what it is sent
    // holds neither (written backwards, neither is one).
    const reply = await run(
      agentId,
      `reverse ${[...'card 4111 1111 1111 1111, mail jane@example.com, bye'].reverse().join('')}`,
    );
    expect(reply.message).toMatchObject({
      status: 'success',
      content: 'Vendor says: card [CARD], mail [EMAIL], bye',
    });
    expect(contentOf(reply.lines)).toBe(reply.message.content);
    expect(JSON.stringify(reply.lines)).not.toMatch(/jane|example\.com|4111/);
    expect(guardrailLines(reply)).toEqual([
      { stage: 'output', kind: 'card', action: 'redacted' },
      { stage: 'output', kind: 'email', action: 'redacted' },
    ]);
    const [step] = await queryDatabase<{ text: string; streamed_text: string | null }>(
      deployment.environment.databaseUrl,
      'SELECT text, streamed_text FROM run_steps WHERE message_id = $1',
      [reply.message.id],
    );
    expect(step).toEqual({ text: reply.message.content, streamed_text: null });
    expect((await storedReply(reply.message.id)).content).toBe(reply.message.content);
  });

  it('blocks when the moderation model cannot answer: guardrails fail closed', async () => {
    const agentId = await agentWith({
      model: 'openai:gpt-e2e',
      guardrails: { pii: 'off', moderation_model: 'openai:mod-e2e' },
    });
    const reply = await run(agentId, 'moderation-check hello\nstatus 503 @mod-e2e');
    expect(reply.message).toMatchObject({ status: 'error', error_code: 'guardrail_blocked' });
    expect(guardrailLines(reply)).toEqual([{ stage: 'input', kind: 'moderation', action: 'blocked' }]);
    const asked = requestsWith(openai, 'moderation-check');
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((request) => request.body.model === 'mod-e2e')).toBe(true);
    // With the moderation model up, the same agent answers.
    const allowed = await run(agentId, 'moderation-check fine');
    expect(allowed.message).toMatchObject({
      status: 'success',
      content: 'Vendor says: moderation-check fine',
    });
    // The moderation model's two calls (the message, then the reply) count with the reply's own (CONTRACTS §21).
    const perCall = FAKE_USAGE.input + FAKE_USAGE.output;
    expect(await storedReply(allowed.message.id)).toMatchObject({
      usage_tokens: 3 * perCall,
      input_tokens: 3 * FAKE_USAGE.input,
    });
  });

  it('refuses guardrails and fallback models it cannot use with a 422', async () => {
    const response = await client().post('/agents', {
      name: 'bad',
      fallback_models: ['nope', 'openai:a', 'openai:b', 'openai:c'],
      guardrails: { pii: 'sometimes' },
    });
    expect(response.status).toBe(422);
    const locs = response.body.detail.map((issue: { loc: unknown[] }) => issue.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.fallback_models', 'body.guardrails.pii']));
  });
});

describe('the Responses API and MCP show a fallback and a guardrail in their own terms', () => {
  let agentId: string;
  const ask = (marker: string) => `${marker} mail jo@example.org\nstatus 429 @gpt-e2e`;
  const expectedFallback = { step: 1, from: 'openai:gpt-e2e', to: CLAUDE };
  const expectedGuardrail = { stage: 'input', kind: 'email', action: 'redacted' };

  beforeAll(async () => {
    agentId = await agentWith({
      name: 'Protocol Fallback',
      model: 'openai:gpt-e2e',
      fallback_models: [CLAUDE],
      guardrails: { pii: 'redact' },
    });
  });

  it('streams parley:model_fallback and parley:guardrail_triggered events, and replays them alike', async () => {
    const openaiClient = new OpenAI({
      apiKey: deployment.org.key,
      baseURL: `${deployment.url}/openai/v1`,
      maxRetries: 0,
    });
    type AnyEvent = { type: string; sequence_number: number } & Record<string, unknown>;
    const collect = async (stream: AsyncIterable<unknown>) => {
      const events: AnyEvent[] = [];
      for await (const event of stream) events.push(event as AnyEvent);
      return events;
    };
    const events = await collect(
      await openaiClient.responses.create({
        model: agentId,
        input: ask('responses-check'),
        user: 'models-user',
        stream: true,
      }),
    );
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const guardrail = events.find((event) => event.type === 'parley:guardrail_triggered');
    const fallback = events.find((event) => event.type === 'parley:model_fallback');
    expect(guardrail).toMatchObject(expectedGuardrail);
    expect(fallback).toMatchObject(expectedFallback);
    expect(fallback!.reason).toMatch(/429/);
    // Before the text it came before, and the Response is whole all the same.
    const firstDelta = events.findIndex((event) => event.type === 'response.output_text.delta');
    expect(events.indexOf(fallback!)).toBeLessThan(firstDelta);
    const last = events.at(-1)!;
    expect(last).toMatchObject({ type: 'response.completed' });
    expect((last.response as { output_text: string }).output_text).toBe(
      'Vendor says: responses-check mail [EMAIL]\nstatus 429 @gpt-e2e',
    );
    const replayed = await collect(
      await openaiClient.responses.retrieve((last.response as { id: string }).id, { stream: true }),
    );
    expect(replayed.map((event) => [event.type, event.sequence_number])).toEqual(
      events.map((event) => [event.type, event.sequence_number]),
    );
  });

  it('sends MCP log messages while the call waits, and lists both in the tool result', async () => {
    const mcp = new Client({ name: 'parley-e2e', version: '1.0.0' });
    const logs: unknown[] = [];
    mcp.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${deployment.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${deployment.org.key}` } },
      }),
    );
    try {
      const result = (await mcp.callTool({
        name: 'protocol_fallback',
        arguments: { message: ask('mcp-check'), user_id: 'models-user' },
      })) as CallToolResult;
      expect(result.isError).toBe(false);
      expect(logs).toEqual([
        { level: 'notice', logger: 'parley.guardrail', data: expectedGuardrail },
        {
          level: 'warning',
          logger: 'parley.model_fallback',
          data: { ...expectedFallback, reason: expect.stringMatching(/429/) },
        },
      ]);
      expect(result.structuredContent).toMatchObject({
        status: 'success',
        error_code: null,
        content: 'Vendor says: mcp-check mail [EMAIL]\nstatus 429 @gpt-e2e',
        guardrails: [expectedGuardrail],
        model_fallbacks: [{ ...expectedFallback, reason: expect.stringMatching(/429/) }],
      });
    } finally {
      await mcp.close();
    }
  });
});
