import { admin, adminFails, createOrg, OrgFixture } from '../factories/admin';
import { FAKE_USAGE, FakeOpenAI } from '../support/fake-openai';
import { api } from '../support/http';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';
import { numbered, OpenStream, until } from './stream.support';

/**
 * Evaluations on real processes (CONTRACTS §23): datasets of items or recorded threads, runs whose items the
 * workers answer as replies in `eval` threads (never listed by GET /chat, counted in usage), each scorer giving
 * exact pass/fail, a rubric judged by a vendor model (the local fake), a slow judge asked with no lock or
 * transaction held, a run that survives its worker's SIGKILL with no item run twice, an item whose worker died
 * while judging it judged again once, and the CLI gate for CI.
 */
const OPENAI_KEY = 'sk-openai-evals-1234';
const JUDGE = 'openai:judge-e2e';
const workerEnv = { WORKER_HEALTH_PORT: '0', RUN_SWEEP_INTERVAL_MS: '1000', RUN_SWEEP_AFTER_MS: '3000' };

let environment: TestEnvironment;
let gateway: AppProcess;
const workers: AppProcess[] = [];
let org: OrgFixture;
const judge = new FakeOpenAI(OPENAI_KEY);

const evalWorkerEnv = () => ({ ...workerEnv, OPENAI_BASE_URL: judge.baseUrl, OPENAI_API_KEY: OPENAI_KEY });
const startEvalWorker = () => startWorker(environment.env, evalWorkerEnv());

beforeAll(async () => {
  [environment] = await Promise.all([createTestEnvironment(), judge.start()]);
  const [started, worker] = await Promise.all([startGateway(environment.env), startEvalWorker()]);
  gateway = started;
  workers.push(worker);
  org = await createOrg(environment.env);
}, 120000);

afterAll(async () => {
  await Promise.all([gateway?.stop(), ...workers.map((worker) => worker.stop()), judge.close()]);
  await environment?.dispose();
});

const client = () => api(gateway.url!, org.key);

interface RunItem {
  input: { content: string };
  output: string | null;
  reference: string | null;
  scores: Record<string, { passed: boolean; reason?: string }> | null;
  passed: boolean | null;
  reply_id: string | null;
  thread_id: string | null;
}
interface Run {
  id: string;
  status: 'running' | 'done';
  agent_version: number;
  items: RunItem[];
  summary: { items: number; passed: number; pass_rate: number; input_tokens: number; output_tokens: number };
}

async function newAgent(name: string): Promise<string> {
  const created = await client().post('/agents', { name });
  expect(created.status).toBe(200);
  return created.body.id as string;
}

async function newDataset(body: Record<string, unknown>): Promise<string> {
  const created = await client().post('/evals/datasets', { name: 'dataset', ...body });
  expect(created.status).toBe(200);
  return created.body.id as string;
}

async function startRun(body: Record<string, unknown>): Promise<string> {
  const started = await client().post('/evals/runs', body);
  expect(started.status).toBe(202);
  return started.body.id as string;
}

async function finished(runId: string, timeoutMs = 60000): Promise<Run> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await client().get<Run>(`/evals/runs/${runId}`);
    expect(run.status).toBe(200);
    if (run.body.status === 'done') return run.body;
    if (Date.now() > deadline) throw new Error(`run still running: ${JSON.stringify(run.body.summary)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const say = (text: string) => ({ content: `/say ${text}` });

/** Two items per scorer: one that passes and one that fails. */
const SCORED_ITEMS = [
  { input: say('The time is noon'), expected: { equals: 'The time is noon' } },
  { input: say('hello world'), expected: { equals: 'hello' } },
  { input: say('hello world'), expected: { contains: 'world' } },
  { input: say('hello world'), expected: { contains: 'bye' } },
  { input: say('hello world'), expected: { regex: '^hello\\s\\w+$' } },
  { input: say('hello world'), expected: { regex: '^\\d+$' } },
  { input: { content: '/tool clock {}' }, expected: { tool_called: 'clock' } },
  { input: say('no tools here'), expected: { tool_called: 'clock' } },
  { input: say('Good morning, Ann'), expected: { rubric: 'Greets the user.\nverdict yes It greets Ann.' } },
  { input: say('Go away'), expected: { rubric: 'Greets the user.\nverdict no It sends the user away.' } },
];

it('scores every item exactly with each scorer, judges a rubric through a vendor model, and sums the run', async () => {
  const agentId = await newAgent('evaluated');
  const datasetId = await newDataset({ items: SCORED_ITEMS });
  const runId = await startRun({ dataset_id: datasetId, agent_id: agentId, judge_model: JUDGE });
  const run = await finished(runId);

  expect(run.agent_version).toBe(1);
  expect(run.items.map((item) => item.passed)).toEqual([
    true,
    false,
    true,
    false,
    true,
    false,
    true,
    false,
    true,
    false,
  ]);
  expect(run.items.map((item) => item.scores)).toEqual([
    { equals: { passed: true } },
    { equals: { passed: false } },
    { contains: { passed: true } },
    { contains: { passed: false } },
    { regex: { passed: true } },
    { regex: { passed: false } },
    { tool_called: { passed: true } },
    { tool_called: { passed: false } },
    { rubric: { passed: true, reason: 'It greets Ann.' } },
    { rubric: { passed: false, reason: 'It sends the user away.' } },
  ]);
  expect(run.items[0].output).toBe('The time is noon');
  // The judge saw the rubric and the answer it graded.
  const judged = judge.requests.map((request) => JSON.stringify(request.body.messages));
  expect(judged.some((text) => text.includes('Answer: Good morning, Ann'))).toBe(true);
  expect(judge.requests.every((request) => request.body.model === 'judge-e2e')).toBe(true);

  // The summary is the items' own sums, and usage counts the same replies under the agent.
  expect(run.summary).toMatchObject({ items: 10, passed: 5, pass_rate: 0.5 });
  expect(run.summary.output_tokens).toBeGreaterThan(0);
  const usage = await client().get(`/usage?group_by=agent&agent_id=${agentId}`);
  expect(usage.body.rows).toEqual([
    expect.objectContaining({
      agent_id: agentId,
      replies: 10,
      input_tokens: run.summary.input_tokens,
      output_tokens: run.summary.output_tokens,
    }),
  ]);

  // Each item is a reply in a thread of inception "eval", which GET /chat never lists.
  const thread = await client().get(`/chat/${run.items[0].thread_id}`);
  expect(thread.body).toMatchObject({ inception: 'eval' });
  expect(thread.body.messages[1].id).toBe(run.items[0].reply_id);
  // Its end user is the run (`eval:<run id>`): even asked for by that name, GET /chat lists none of its threads.
  const listed = await client().get(`/chat?user_id=${encodeURIComponent(`eval:${runId}`)}`);
  expect(listed.status).toBe(200);
  expect(listed.body).toEqual([]);

  const runs = await client().get<Run[]>(`/evals/runs?agent_id=${agentId}`);
  expect(runs.body.map((listedRun) => [listedRun.id, listedRun.status, listedRun.summary.passed])).toEqual([
    [runId, 'done', 5],
  ]);
});

it("counts the rubric judge's tokens in usage, in the run's summary and against the agent's budget", async () => {
  const agentId = await newAgent('judged');
  const datasetId = await newDataset({ items: SCORED_ITEMS.slice(8) });
  const judgeCallsBefore = judge.requests.length;
  const run = await finished(
    await startRun({ dataset_id: datasetId, agent_id: agentId, judge_model: JUDGE }),
  );
  const judgeCalls = judge.requests.length - judgeCallsBefore;
  expect(judgeCalls).toBe(2);

  // Usage by model: the builtin model's two replies, and the judge's two calls (no reply) at the fake's usage.
  const byModel = await client().get(`/usage?group_by=model&agent_id=${agentId}`);
  const rows = byModel.body.rows as {
    model: string;
    replies: number;
    input_tokens: number;
    output_tokens: number;
  }[];
  const replies = rows.find((row) => row.model === 'builtin')!;
  expect(replies).toMatchObject({ replies: 2 });
  expect(rows.find((row) => row.model === JUDGE)).toEqual(
    expect.objectContaining({
      replies: 0,
      input_tokens: judgeCalls * FAKE_USAGE.input,
      output_tokens: judgeCalls * FAKE_USAGE.output,
    }),
  );
  // The summary is what the run spent: its replies and its judge.
  expect(run.summary).toMatchObject({
    input_tokens: replies.input_tokens + judgeCalls * FAKE_USAGE.input,
    output_tokens: replies.output_tokens + judgeCalls * FAKE_USAGE.output,
  });
  // The agent's counter (what its token budget is checked against) holds the judge's tokens too.
  const spent = run.summary.input_tokens + run.summary.output_tokens;
  let tokensUsed = 0;
  for (let tries = 0; tries < 100 && tokensUsed !== spent; tries++) {
    tokensUsed = (await client().get(`/agents/${agentId}`)).body.tokens_used as number;
    if (tokensUsed !== spent) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(tokensUsed).toBe(spent);
});

it("asks no judge once the agent's token budget is spent, and says so in the score", async () => {
  const created = await client().post('/agents', { name: 'spent', token_budget: 1 });
  expect(created.status).toBe(200);
  const judgeCallsBefore = judge.requests.length;
  const run = await finished(
    await startRun({
      dataset_id: await newDataset({ items: SCORED_ITEMS.slice(8, 9) }),
      agent_id: created.body.id,
      judge_model: JUDGE,
    }),
  );
  expect(judge.requests.length).toBe(judgeCallsBefore);
  expect(run.items[0]).toMatchObject({
    passed: false,
    scores: { rubric: { passed: false, reason: 'the token budget is spent: no judge was asked' } },
  });
});

it('makes a dataset of recorded threads, whose replies are the references, keeps eval threads out of GET /chat, and erases the copies with their user', async () => {
  const agentId = await newAgent('recorded');
  const started = await client().post('/chat', {
    message: say('the recorded answer'),
    options: { agent_id: agentId, user_id: 'alice' },
  });
  const replyId = started.body.messages[1].id as string;
  const lines = numbered(
    await new OpenStream(`${gateway.url}/chat/messages/${replyId}/stream`, org.key).all(),
  );
  expect(lines.at(-1)).toMatchObject({ type: 'message.completed' });

  const dataset = await client().post('/evals/datasets', {
    name: 'last week',
    from_threads: [started.body.id],
  });
  expect(dataset.status).toBe(200);
  expect(dataset.body.items).toEqual([
    { input: { content: '/say the recorded answer' }, expected: null, reference: 'the recorded answer' },
  ]);
  const run = await finished(await startRun({ dataset_id: dataset.body.id, agent_id: agentId }));
  expect(run.items[0]).toMatchObject({
    output: 'the recorded answer',
    reference: 'the recorded answer',
    passed: true,
  });

  const alice = await client().get('/chat?user_id=alice');
  expect(alice.body.map((listed: { id: string }) => listed.id)).toEqual([started.body.id]);

  // Erasing alice (CONTRACTS §20) deletes the copies of her messages in the dataset and in the run.
  const erasure = await client().delete('/users/alice');
  expect(erasure.status).toBe(202);
  let counts: Record<string, number> = {};
  for (let tries = 0; tries < 200; tries++) {
    const state = await client().get(`/erasures/${erasure.body.erasure_id}`);
    if (state.body.status === 'done') {
      counts = state.body.counts as Record<string, number>;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(counts).toMatchObject({ eval_items: 2, eval_threads: 1 });
  expect((await client().get(`/chat/${run.items[0].thread_id}`)).status).toBe(404);
  expect((await client().get(`/evals/datasets/${dataset.body.id}`)).body.items).toEqual([]);
  expect((await client().get<Run>(`/evals/runs/${run.id}`)).body.items).toEqual([]);
});

it('refuses bad datasets and runs with a clear 4xx at the field', async () => {
  const agentId = await newAgent('strict');
  const badRegex = await client().post('/evals/datasets', {
    name: 'bad',
    items: [{ input: say('x'), expected: { regex: '(' } }],
  });
  expect(badRegex.status).toBe(422);
  expect(badRegex.body.detail[0]).toMatchObject({ loc: ['body', 'items', 0, 'expected', 'regex'] });
  const exponential = await client().post('/evals/datasets', {
    name: 'slow',
    items: [{ input: say('x') }, { input: say('x'), expected: { regex: '(a+)+$' } }],
  });
  expect(exponential.body.detail[0]).toMatchObject({ loc: ['body', 'items', 1, 'expected', 'regex'] });
  const both = await client().post('/evals/datasets', {
    name: 'both',
    items: [{ input: say('x') }],
    from_threads: [],
  });
  expect(both.status).toBe(422);
  const unknownThread = await client().post('/evals/datasets', {
    name: 'ghost',
    from_threads: ['0196f3a0-0000-7000-8000-000000000000'],
  });
  expect(unknownThread.body.detail[0]).toMatchObject({ loc: ['body', 'from_threads', 0] });
  const tooMany = await client().post('/evals/datasets', {
    name: 'huge',
    items: Array.from({ length: 1001 }, () => ({ input: say('x') })),
  });
  expect(tooMany.status).toBe(422);
  expect(tooMany.body.detail[0]).toMatchObject({ loc: ['body', 'items'], type: 'too_long' });

  const datasetId = await newDataset({ items: [{ input: say('x') }] });
  const unknownVersion = await client().post('/evals/runs', {
    dataset_id: datasetId,
    agent_id: agentId,
    agent_version: 5,
  });
  expect(unknownVersion.status).toBe(422);
  expect(unknownVersion.body.detail[0]).toMatchObject({ loc: ['body', 'agent_version'] });
  const unknownDataset = await client().post('/evals/runs', {
    dataset_id: '0196f3a0-0000-7000-8000-000000000000',
    agent_id: agentId,
  });
  expect(unknownDataset.body).toEqual({ detail: 'Dataset not found' });
});

it('finishes a run whose worker was killed mid-way, with every item run exactly once', async () => {
  const agentId = await newAgent('crashing');
  // Each reply calls a tool and then streams slowly, so the kill lands while replies are running.
  const items = Array.from({ length: 12 }, (_, index) => ({
    input: { content: `/tool clock {}\n/sleep 150\n/say item ${index} a b c d e f` },
    expected: { tool_called: 'clock', contains: `item ${index}` },
  }));
  const runId = await startRun({ dataset_id: await newDataset({ items }), agent_id: agentId });
  const deadline = Date.now() + 30000;
  for (;;) {
    const [{ running }] = await queryDatabase<{ running: number }>(
      environment.databaseUrl,
      `SELECT count(*)::int AS running FROM eval_run_items i JOIN messages m ON m.id = i.reply_id
       WHERE i.run_id = $1 AND m.status = 'running'`,
      [runId],
    );
    if (running > 0) break;
    if (Date.now() > deadline) throw new Error('no item started running');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await workers.shift()!.kill();
  workers.push(await startEvalWorker());

  const run = await finished(runId, 90000);
  expect(run.summary).toMatchObject({ items: 12, passed: 12, pass_rate: 1 });
  // One thread and one reply per item, and each reply's tool call ran once.
  const [counts] = await queryDatabase<{ threads: number; replies: number; tool_calls: number }>(
    environment.databaseUrl,
    `SELECT (SELECT count(*)::int FROM threads WHERE user_id = $1) AS threads,
            (SELECT count(*)::int FROM messages m JOIN threads t ON t.id = m.thread_id
               WHERE t.user_id = $1 AND m.role = 'assistant') AS replies,
            (SELECT count(*)::int FROM tool_calls c JOIN messages m ON m.id = c.message_id
               JOIN threads t ON t.id = m.thread_id WHERE t.user_id = $1) AS tool_calls`,
    [`eval:${runId}`],
  );
  expect(counts).toEqual({ threads: 12, replies: 12, tool_calls: 12 });
});

const itemStates = async (runId: string) =>
  queryDatabase<{ position: number; state: string }>(
    environment.databaseUrl,
    `SELECT position, state FROM eval_run_items WHERE run_id = $1 ORDER BY position`,
    [runId],
  );

const GREETING = {
  input: say('Good morning, Ann'),
  expected: { rubric: 'Greets the user.\nverdict yes It greets Ann.' },
};

it('asks a slow judge with no lock or transaction held: the run goes on meanwhile, and the item is judged once', async () => {
  const agentId = await newAgent('slow judge');
  // The first item waits on the judge; twice EVAL_ITEMS_IN_FLIGHT (8) more need only checks, so most of them
  // can start only as slots free while the judge is being asked.
  const checked = Array.from({ length: 16 }, (_, index) => ({
    input: say(`item ${index}`),
    expected: { contains: `item ${index}` },
  }));
  const datasetId = await newDataset({ items: [GREETING, ...checked] });
  const judgeCallsBefore = judge.requests.length;
  judge.holdAnswers();
  try {
    const runId = await startRun({ dataset_id: datasetId, agent_id: agentId, judge_model: JUDGE });
    await until(() => judge.requests.length > judgeCallsBefore, 30000);
    const askedAt = Date.now();
    // Meanwhile every other item is answered and scored: the run goes on.
    await until(
      async () => (await itemStates(runId)).slice(1).every((item) => item.state === 'scored'),
      30000,
    );
    await until(() => Date.now() - askedAt > 1000);
    expect((await itemStates(runId))[0]).toEqual({ position: 0, state: 'judging' });
    // No transaction of the service is open across the judge's answer: none began before the last second.
    const [{ open }] = await queryDatabase<{ open: number }>(
      environment.databaseUrl,
      `SELECT count(*)::int AS open FROM pg_stat_activity
       WHERE datname = current_database() AND backend_type = 'client backend'
         AND xact_start < now() - interval '1 second'`,
    );
    expect(open).toBe(0);
    judge.release();

    const run = await finished(runId);
    expect(run.items[0]).toMatchObject({
      passed: true,
      scores: { rubric: { passed: true, reason: 'It greets Ann.' } },
    });
    expect(run.summary).toMatchObject({ items: 17, passed: 17 });
    expect(judge.requests.length - judgeCallsBefore).toBe(1);
  } finally {
    judge.release();
  }
});

it("judges an item again, once, when its worker died while the judge was asked, and counts only the answered call's tokens", async () => {
  const agentId = await newAgent('judge crash');
  const datasetId = await newDataset({ items: [GREETING] });
  const judgeCallsBefore = judge.requests.length;
  judge.holdAnswers();
  const runId = await startRun({ dataset_id: datasetId, agent_id: agentId, judge_model: JUDGE });
  try {
    await until(() => judge.requests.length > judgeCallsBefore, 30000);
    await workers.shift()!.kill();
  } finally {
    judge.release();
  }
  // A claim twice the judge's timeout old is taken back: 10 s with this worker's setting.
  workers.push(await startWorker(environment.env, { ...evalWorkerEnv(), EVAL_JUDGE_TIMEOUT_MS: '5000' }));

  const run = await finished(runId);
  expect(run.items[0]).toMatchObject({
    passed: true,
    scores: { rubric: { passed: true, reason: 'It greets Ann.' } },
  });
  // Asked twice: by the killed worker, which never had the answer, and once again after the claim was taken back.
  expect(judge.requests.length - judgeCallsBefore).toBe(2);
  const byModel = await client().get(`/usage?group_by=model&agent_id=${agentId}`);
  const rows = byModel.body.rows as { model: string; input_tokens: number; output_tokens: number }[];
  const judged = rows.find((row) => row.model === JUDGE);
  expect(judged).toMatchObject({ input_tokens: FAKE_USAGE.input, output_tokens: FAKE_USAGE.output });
  const replies = rows.find((row) => row.model === 'builtin')!;
  expect(run.summary).toMatchObject({
    input_tokens: replies.input_tokens + FAKE_USAGE.input,
    output_tokens: replies.output_tokens + FAKE_USAGE.output,
  });
});

it('gates a pipeline: evals:run waits for the run and exits 1 under --min-pass-rate', async () => {
  const agentId = await newAgent('gated');
  const datasetId = await newDataset({ items: SCORED_ITEMS.slice(0, 2) });
  const passed = await admin<Run>(environment.env, [
    'evals:run',
    '--dataset',
    datasetId,
    '--agent',
    agentId,
    '--version',
    '1',
    '--min-pass-rate',
    '0.5',
  ]);
  expect(passed).toMatchObject({ status: 'done', summary: { items: 2, passed: 1, pass_rate: 0.5 } });

  const failed = await adminFails(environment.env, [
    'evals:run',
    '--dataset',
    datasetId,
    '--agent',
    agentId,
    '--min-pass-rate',
    '0.9',
  ]);
  expect(failed.code).toBe(1);
  expect(failed.stderr).toContain('pass rate 0.5 is under 0.9');
  expect(JSON.parse(failed.stdout)).toMatchObject({ status: 'done', summary: { pass_rate: 0.5 } });
});
