import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { FAKE_USAGE, FakeOpenAI } from '../support/fake-openai';
import { api } from '../support/http';
import { OtlpReceiver, ReceivedSpan } from '../support/otlp-receiver';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, DIST, TestEnvironment } from '../support/test-environment';
import { Line, numbered, OpenStream } from './stream.support';

/**
 * Traces on real processes: gateway and worker export OTLP/HTTP to a local receiver, and one conversation
 * (POST /chat, the reply's job, its model and tool calls) must arrive as one trace with the right parents.
 */
const OPENAI_KEY = 'sk-openai-tracing-secret-4321';
const USER = 'tracing-user';
const SPAN_KIND = { internal: 1, server: 2, client: 3, consumer: 5 };

const receiver = new OtlpReceiver();
const openai = new FakeOpenAI(OPENAI_KEY);
let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess;
let org: OrgFixture;
const agents: Record<'builtin' | 'openai', string> = { builtin: '', openai: '' };
const agentNames: Record<'builtin' | 'openai', string> = { builtin: '', openai: '' };

beforeAll(async () => {
  await Promise.all([receiver.start(), openai.start()]);
  environment = await createTestEnvironment({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    // Export within a tenth of a second instead of the SDK's five.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  [gateway, worker] = await Promise.all([
    startGateway(environment.env),
    startWorker(environment.env, {
      WORKER_HEALTH_PORT: '0',
      OTEL_SERVICE_NAME: 'parley-worker-e2e',
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_API_KEY: OPENAI_KEY,
    }),
  ]);
  org = await createOrg(environment.env);
  const [builtin, gpt] = await Promise.all([
    createAgent(environment.env, org.org),
    createAgent(environment.env, org.org, ['--model', 'openai:gpt-e2e', '--tools', 'clock']),
  ]);
  Object.assign(agents, { builtin: builtin.id, openai: gpt.id });
  Object.assign(agentNames, { builtin: builtin.name, openai: gpt.name });
}, 120000);

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop(), openai.close()]);
  await receiver.close();
  await environment?.dispose();
});

/** Posts a chat and reads its reply's stream to the end; the lines and the POST's server span. */
async function converse(agent: keyof typeof agents, content: string) {
  const response = await api(gateway.url!, org.key).post('/chat', {
    message: { content },
    options: { agent_id: agents[agent], user_id: USER },
  });
  expect(response.status).toBe(200);
  const replyId = response.body.messages[1].id as string;
  const lines = numbered(
    await new OpenStream(`${gateway.url}/chat/messages/${replyId}/stream`, org.key).all(),
  );
  expect(lines[lines.length - 1]).toMatchObject({
    type: 'message.completed',
    message: { status: 'success' },
  });
  // The POST's server span: it records the request id the gateway made and answered.
  const requestId = response.headers.get('x-request-id');
  const request = await receiver.waitFor(
    (span) =>
      span.service === 'parley-gateway' &&
      span.kind === SPAN_KIND.server &&
      pathOf(span) === '/chat' &&
      String(span.attributes['http.request.header.x-request-id']) === requestId,
  );
  return { replyId, lines, request };
}

const pathOf = (span: ReceivedSpan) => span.attributes['url.path'] ?? span.attributes['http.target'];

/** Every span of the trace once the reply's last model span has arrived. */
async function traceOf(traceId: string, lastModelCalls: number): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + 20000;
  for (;;) {
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    const jobEnded = spans.some((span) => span.name === 'process agent-run');
    const modelCalls = spans.filter((span) => span.name.startsWith('chat ')).length;
    if (jobEnded && modelCalls >= lastModelCalls) return spans;
    if (Date.now() > deadline)
      throw new Error(`trace ${traceId} incomplete: ${spans.map((span) => span.name).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const toolCallOf = (lines: Line[]) => lines.find((line) => line.type === 'tool.call')!;

describe('one conversation is one trace', () => {
  it('joins the gateway request, the worker job, the model calls and the tool call (builtin model)', async () => {
    const { lines, request } = await converse('builtin', '/tool clock {}');
    expect(request.parentSpanId).toBeUndefined();
    const spans = await traceOf(request.traceId, 2);

    const job = spans.find((span) => span.name === 'process agent-run')!;
    expect(job).toMatchObject({
      service: 'parley-worker-e2e',
      kind: SPAN_KIND.consumer,
      parentSpanId: request.spanId,
      attributes: expect.objectContaining({
        'messaging.destination.name': 'agent-run',
        'messaging.operation.type': 'process',
      }),
    });

    // The reply's agent work (CONTRACTS §23): its agent, version and thread, the parent of its model and tool calls.
    const agentSpan = spans.find((span) => span.name.startsWith('invoke_agent '))!;
    expect(agentSpan).toMatchObject({
      service: 'parley-worker-e2e',
      kind: SPAN_KIND.internal,
      parentSpanId: job.spanId,
      attributes: expect.objectContaining({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.id': agents.builtin,
        'gen_ai.agent.name': agentNames.builtin,
        'gen_ai.agent.version': '1',
        'gen_ai.conversation.id': lines[0].thread_id,
      }),
    });
    expect(lines[0]).toMatchObject({ type: 'message.started', agent_version: 1 });

    const models = spans.filter((span) => span.name === 'chat builtin');
    expect(models).toHaveLength(2);
    for (const model of models) {
      expect(model).toMatchObject({
        service: 'parley-worker-e2e',
        kind: SPAN_KIND.client,
        parentSpanId: agentSpan.spanId,
        attributes: expect.objectContaining({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'parley',
          'gen_ai.system': 'parley',
          'gen_ai.request.model': 'builtin',
          'gen_ai.usage.input_tokens': expect.any(Number),
          'gen_ai.usage.output_tokens': expect.any(Number),
        }),
      });
      expect(model.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    }
    expect(models.map((model) => model.attributes['gen_ai.response.finish_reasons'])).toEqual(
      expect.arrayContaining([['tool-calls'], ['stop']]),
    );

    const tool = spans.find((span) => span.name === 'execute_tool clock')!;
    expect(tool).toMatchObject({
      service: 'parley-worker-e2e',
      kind: SPAN_KIND.internal,
      parentSpanId: agentSpan.spanId,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'clock',
        'gen_ai.tool.call.id': toolCallOf(lines).call_id,
      },
    });

    // The official instrumentations traced the database work on both sides, inside this trace.
    const ids = new Set(spans.map((span) => span.spanId));
    const queries = spans.filter(
      (span) => (span.attributes['db.system.name'] ?? span.attributes['db.system']) === 'postgresql',
    );
    expect(queries.some((span) => span.service === 'parley-gateway')).toBe(true);
    expect(queries.some((span) => span.service === 'parley-worker-e2e')).toBe(true);
    expect(spans.every((span) => span === request || ids.has(span.parentSpanId!))).toBe(true);
  });

  it('puts the vendor HTTP call under its model span, with the vendor, model and tokens', async () => {
    const { lines, request } = await converse('openai', 'call clock {}');
    const spans = await traceOf(request.traceId, 2);
    const job = spans.find((span) => span.name === 'process agent-run')!;
    expect(job.parentSpanId).toBe(request.spanId);

    const agentSpan = spans.find((span) => span.name === `invoke_agent ${agentNames.openai}`)!;
    expect(agentSpan.parentSpanId).toBe(job.spanId);
    expect(agentSpan.attributes).toMatchObject({
      'gen_ai.agent.id': agents.openai,
      'gen_ai.request.model': 'openai:gpt-e2e',
    });

    const models = spans.filter((span) => span.name === 'chat gpt-e2e');
    expect(models).toHaveLength(2);
    for (const model of models) {
      expect(model.parentSpanId).toBe(agentSpan.spanId);
      expect(model.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-e2e',
        'gen_ai.usage.input_tokens': FAKE_USAGE.input,
        'gen_ai.usage.output_tokens': FAKE_USAGE.output,
      });
      const vendorCalls = spans.filter(
        (span) => span.parentSpanId === model.spanId && span.kind === SPAN_KIND.client,
      );
      expect(vendorCalls).toHaveLength(1);
      expect(String(vendorCalls[0].attributes['url.full'])).toContain(`${openai.baseUrl}`);
    }
    const tool = spans.find((span) => span.name === 'execute_tool clock')!;
    expect(tool.parentSpanId).toBe(agentSpan.spanId);
    expect(tool.attributes['gen_ai.tool.call.id']).toBe(toolCallOf(lines).call_id);
    // Spans carry no secrets: the vendor key is nowhere in what was exported.
    expect(JSON.stringify(receiver.spans)).not.toContain(OPENAI_KEY);
  });
});

describe('OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  const run = promisify(execFile);
  /** Starts tracing as main.ts does, then tells which OpenTelemetry SDK modules got loaded. */
  const loadedSdkModules = async (env: NodeJS.ProcessEnv) => {
    const script = `
      require(${JSON.stringify(`${DIST}/libs/observability/src/tracing.js`)}).startTracing('probe');
      const loaded = Object.keys(require.cache).filter((path) => /@opentelemetry\\/(sdk|instrumentation|exporter)/.test(path));
      console.log(JSON.stringify(loaded.length));
      process.exit(0);`;
    const { stdout } = await run(process.execPath, ['-e', script], { env: { ...environment.env, ...env } });
    return JSON.parse(stdout) as number;
  };

  it('unset, loads no SDK and no instrumentation; set, loads them', async () => {
    expect(await loadedSdkModules({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(0);
    expect(await loadedSdkModules({})).toBeGreaterThan(0);
  });
});
