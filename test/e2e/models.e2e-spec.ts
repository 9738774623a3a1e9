import { useDeployment } from '../support/deployment';
import { FakeAnthropic } from '../support/fake-anthropic';
import { FAKE_USAGE, FakeOpenAI, FakeVendor } from '../support/fake-openai';
import { queryDatabase } from '../support/test-environment';
import { contentOf, ofType, runReply, shape } from './models.support';

/**
 * Vendor models on real processes: a worker whose OPENAI_BASE_URL and ANTHROPIC_BASE_URL point at local servers
 * speaking each vendor's streaming protocol. Each vendor streams, runs a tool round, fails readably, retries
 * what may succeed, counts usage, and its stream and Message have exactly the builtin model's shape.
 */
const OPENAI_KEY = 'sk-openai-e2e-secret-1234';
const ANTHROPIC_KEY = 'sk-ant-e2e-secret-5678';
const IDLE_TIMEOUT_MS = 1500;

const openai = new FakeOpenAI(OPENAI_KEY);
const anthropic = new FakeAnthropic(ANTHROPIC_KEY);
const agents: Record<string, string> = {};

beforeAll(() => Promise.all([openai.start(), anthropic.start()]));
const deployment = useDeployment({
  workers: 1,
  workerEnv: () => ({
    WORKER_HEALTH_PORT: '0',
    ...openai.workerEnv(),
    ...anthropic.workerEnv(),
    MODEL_RETRY_BASE_MS: '20',
    MODEL_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
  }),
});

beforeAll(async () => {
  const options = ['--tools', 'clock', '--temperature', '0.2', '--max-output-tokens', '300'];
  const [builtin, gpt, claude] = await Promise.all([
    deployment.createAgent(),
    deployment.createAgent(['--model', 'openai:gpt-e2e', ...options]),
    deployment.createAgent(['--model', 'anthropic:claude-3-5-haiku-latest', ...options]),
  ]);
  Object.assign(agents, { builtin: builtin.id, openai: gpt.id, anthropic: claude.id });
});

afterAll(() => Promise.all([openai.close(), anthropic.close()]));

const run = (agent: string, content: string) =>
  runReply(deployment.url, deployment.org.key, agents[agent], content);

const requestsFor = (vendor: FakeVendor, text: string) =>
  vendor.requests.filter((request) => JSON.stringify(request.body.messages).includes(text));

const usageOf = async (messageId: string) =>
  Number(
    (
      await queryDatabase<{ usage_tokens: string }>(
        deployment.environment.databaseUrl,
        'SELECT usage_tokens FROM messages WHERE id = $1',
        [messageId],
      )
    )[0].usage_tokens,
  );

/** What the agent's counter holds, with its ended replies not folded into it yet (the worker folds each second). */
const tokensUsed = async (agentId: string) =>
  Number(
    (
      await queryDatabase<{ tokens_used: string }>(
        deployment.environment.databaseUrl,
        `SELECT tokens_used + COALESCE((SELECT sum(tokens) FROM token_usage_pending WHERE agent_id = $1), 0)
           AS tokens_used FROM agents WHERE id = $1`,
        [agentId],
      )
    )[0].tokens_used,
  );

const VENDORS = [
  ['openai', openai],
  ['anthropic', anthropic],
] as const;

describe.each(VENDORS)('%s model', (name, vendor) => {
  it('streams an answer word by word, with the builtin model’s exact stream and Message shape', async () => {
    const [reply, builtin] = await Promise.all([run(name, 'hello there'), run('builtin', 'hello there')]);
    expect(reply.message).toMatchObject({
      status: 'success',
      content: 'Vendor says: hello there',
      error_code: null,
    });
    expect(contentOf(reply.lines)).toBe(reply.message.content);
    // Four words; those that arrive within one hold window travel as one line (CONTRACTS §5).
    expect(ofType(reply.lines, 'text.delta').length).toBeGreaterThanOrEqual(1);
    expect(ofType(reply.lines, 'text.delta').length).toBeLessThanOrEqual(4);
    expect(reply.lines.map((line) => line.seq)).toEqual(reply.lines.map((_, index) => index));
    expect(shape(reply.lines)).toEqual(shape(builtin.lines));
    expect(Object.keys(reply.message).sort()).toEqual(Object.keys(builtin.message).sort());
    expect(reply.message.agent).toEqual({ id: agents[name], name: expect.any(String) });
  });

  it('runs a tool round (two clock calls in one step), then answers with the results', async () => {
    const reply = await run(name, 'call clock {}\ncall clock {"why":"twice"}');
    const builtin = await run('builtin', '/tool clock {}');
    expect(reply.message.status).toBe('success');
    const calls = ofType(reply.lines, 'tool.call');
    expect(calls.map((call) => [call.step, call.name, call.arguments])).toEqual([
      [1, 'clock', {}],
      [1, 'clock', { why: 'twice' }],
    ]);
    const results = ofType(reply.lines, 'tool.result');
    expect(results.map((result) => [result.call_id, result.is_error])).toEqual(
      calls.map((call) => [call.call_id, false]),
    );
    expect(results[0].output).toEqual({ now: expect.any(String), timezone: 'UTC' });
    expect(ofType(reply.lines, 'step.started').map((line) => line.step)).toEqual([1, 2]);
    // The model saw both results and answered with them.
    expect(reply.message.content).toMatch(/^Results: .*"now".*\|.*"now"/);
    expect(reply.message.events).toEqual(
      reply.lines.filter((line) => line.type !== 'text.delta' && line.type !== 'message.completed'),
    );
    const keysByType = (lines: typeof reply.lines) =>
      Object.fromEntries(shape(lines).map((entry) => entry.split(':') as [string, string]));
    expect(keysByType(reply.lines)).toEqual(keysByType(builtin.lines));
    expect(Object.keys(reply.message).sort()).toEqual(Object.keys(builtin.message).sort());
  });

  it('counts the vendor’s usage into the message and the agent', async () => {
    const before = await tokensUsed(agents[name]);
    const single = await run(name, 'count my tokens');
    const round = await run(name, 'call clock {}');
    const perCall = FAKE_USAGE.input + FAKE_USAGE.output;
    expect(await usageOf(single.message.id)).toBe(perCall);
    expect(await usageOf(round.message.id)).toBe(2 * perCall);
    expect((await tokensUsed(agents[name])) - before).toBe(3 * perCall);
  });

  it('sends the agent’s model options and the key to the vendor, and never logs the key', async () => {
    await run(name, 'options check');
    const [request] = requestsFor(vendor, 'options check');
    expect(request.body).toMatchObject({ temperature: 0.2, max_tokens: 300, stream: true });
    expect(deployment.worker.output).not.toContain(OPENAI_KEY);
    expect(deployment.worker.output).not.toContain(ANTHROPIC_KEY);
  });

  it('ends with status error and a readable content when the stream is cut after output', async () => {
    const reply = await run(name, 'cut');
    expect(reply.message.status).toBe('error');
    expect(reply.message.error_code).toBeNull();
    expect(reply.message.content).toMatch(
      new RegExp(`^Partial answer\\n\\nThe model failed: ${name}:\\S+: the vendor's stream broke off`),
    );
    expect(contentOf(reply.lines)).toBe(reply.message.content);
    expect(requestsFor(vendor, '"cut"')).toHaveLength(1);
  });

  it('retries a stream cut before any output, a 429 and a 500, and then answers', async () => {
    for (const text of ['cut-early 1', 'status 429 2', 'status 500 1']) {
      const reply = await run(name, text);
      expect(reply.message).toMatchObject({ status: 'success', content: `Vendor says: ${text}` });
      expect(contentOf(reply.lines)).toBe(reply.message.content);
    }
    expect(requestsFor(vendor, 'status 429 2')).toHaveLength(3);
  });

  it('does not retry a 401: status error saying the key was refused', async () => {
    const reply = await run(name, 'status 401');
    expect(reply.message.status).toBe('error');
    expect(reply.message.content).toMatch(
      /^The model failed: \S+: the vendor refused the API key \(401\): Incorrect API key/,
    );
    expect(requestsFor(vendor, 'status 401')).toHaveLength(1);
  });

  it('gives up on a vendor that goes silent instead of hanging the run', async () => {
    const started = Date.now();
    const reply = await run(name, 'hang');
    expect(reply.message.status).toBe('error');
    expect(reply.message.content).toMatch(
      new RegExp(
        `^Waiting\\n\\nThe model failed: \\S+: no answer from the vendor for ${IDLE_TIMEOUT_MS / 1000} s`,
      ),
    );
    expect(Date.now() - started).toBeLessThan(IDLE_TIMEOUT_MS + 8000);
  });
});
