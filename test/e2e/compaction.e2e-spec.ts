import { useDeployment } from '../support/deployment';
import { FAKE_USAGE, FakeOpenAI } from '../support/fake-openai';
import { queryDatabase } from '../support/test-environment';
import { startThread } from './replies.support';
import { Line, ofType, readStream } from './models.support';

/**
 * Long threads (CONTRACTS §19) on real processes: past an agent's threshold a run first summarizes the older
 * messages with the agent's own model (the builtin model's deterministic extract, a vendor's completion on a
 * local fake that records what it is asked), stores the summary, writes `context.compacted`, and from then on
 * runs see "summary + the messages after it". Nothing is deleted; a summary that fails never breaks the thread.
 */
const OPENAI_KEY = 'sk-openai-compaction-1234';
const USER = 'compaction-user';
const SUMMARY_HEADING = 'Summary of the conversation before the messages below:';

const openai = new FakeOpenAI(OPENAI_KEY);

beforeAll(() => openai.start());
const deployment = useDeployment({
  workers: 1,
  workerEnv: () => ({ WORKER_HEALTH_PORT: '0', ...openai.workerEnv(), MODEL_RETRY_BASE_MS: '20' }),
});

afterAll(() => openai.close());

const client = () => deployment.client();

async function createAgent(body: Record<string, unknown>): Promise<string> {
  const response = await client().post('/agents', { name: 'Long talker', ...body });
  expect(response.status).toBe(200);
  return response.body.id as string;
}

/** The reply's stream, read to its end. */
const streamOf = (replyId: string) => readStream(deployment.url, deployment.org.key, replyId);

/** A thread with one message per content, each answered before the next is sent: the streams of the replies. */
async function conversation(
  agentId: string,
  contents: string[],
): Promise<{ threadId: string; replies: Line[][] }> {
  const started = await startThread(client(), agentId, USER, contents[0]);
  const threadId = started.threadId;
  const replies = [await streamOf(started.replyId)];
  for (const content of contents.slice(1)) replies.push(await say(threadId, content));
  return { threadId, replies };
}

async function say(threadId: string, content: string): Promise<Line[]> {
  const posted = await client().post(`/chat/${threadId}`, {
    message: { content },
    options: { user_id: USER },
  });
  expect(posted.status).toBe(200);
  return streamOf(posted.body.id as string);
}

const summariesOf = (threadId: string) =>
  queryDatabase<{
    summary: string;
    summarized_messages: number;
    through_position: number;
    summary_tokens: number;
  }>(
    deployment.environment.databaseUrl,
    `SELECT summary, summarized_messages, through_position, summary_tokens FROM thread_summaries
      WHERE thread_id = $1 ORDER BY created_at`,
    [threadId],
  );

const completed = (lines: Line[]) => lines[lines.length - 1];

/** The streamed chat requests the fake got whose conversation mentions `text`. */
const chatRequestsWith = (text: string) =>
  openai.requests.filter((r) => r.body.stream === true && JSON.stringify(r.body.messages).includes(text));
const summaryRequestsWith = (text: string) =>
  openai.requests.filter((r) => r.body.stream !== true && JSON.stringify(r.body.messages).includes(text));

describe('compaction', () => {
  it('shows and changes an agent’s setting, and refuses a bad one', async () => {
    const agentId = await createAgent({ compaction: { threshold_tokens: 500 } });
    const shown = await client().get(`/agents/${agentId}`);
    expect(shown.body.compaction).toEqual({ threshold_tokens: 500, keep_recent_messages: 6 });
    const changed = await client().put(`/agents/${agentId}`, {
      compaction: { threshold_tokens: 0, keep_recent_messages: 2 },
    });
    expect(changed.body.compaction).toEqual({ threshold_tokens: 0, keep_recent_messages: 2 });
    expect((await client().put(`/agents/${agentId}`, { compaction: null })).body.compaction).toBeNull();
    const refused = await client().post('/agents', { name: 'x', compaction: { threshold_tokens: -1 } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'compaction', 'threshold_tokens']);
  });

  it('summarizes the older messages with the builtin model past the threshold, and deletes nothing', async () => {
    const agentId = await createAgent({ compaction: { threshold_tokens: 30, keep_recent_messages: 2 } });
    const first = '/say alpha one two three four five six seven eight nine ten eleven twelve thirteen';
    const { threadId, replies } = await conversation(agentId, [first, '/say beta', '/say gamma']);

    // The first run's history (one message) is under 30 tokens; the second's (three) is over.
    expect(ofType(replies[0], 'context.compacted')).toEqual([]);
    const [compacted] = ofType(replies[1], 'context.compacted');
    expect(compacted).toEqual({
      seq: 1,
      type: 'context.compacted',
      summarized_messages: 1,
      summary_tokens: 13,
    });
    expect(replies[1].map((line) => line.type).slice(0, 3)).toEqual([
      'message.started',
      'context.compacted',
      'step.started',
    ]);
    expect(completed(replies[1]).message.events).toContainEqual(compacted);
    expect(completed(replies[1]).message).toMatchObject({ status: 'success', content: 'beta' });

    // The builtin model's summary is the first twelve words of each message it stands for.
    const [summary] = await summariesOf(threadId);
    expect(summary).toMatchObject({ summarized_messages: 1, through_position: 0 });
    expect(summary.summary).toBe('user: /say alpha one two three four five six seven eight nine …');

    // Nothing is deleted: the thread shows every message.
    const thread = await client().get(`/chat/${threadId}?user_id=${USER}`);
    expect(thread.body.messages.map((m: { content: string }) => m.content)).toEqual([
      first,
      'alpha one two three four five six seven eight nine ten eleven twelve thirteen',
      '/say beta',
      'beta',
      '/say gamma',
      'gamma',
    ]);
  });

  it('gives a vendor model the summary and the recent messages only, and counts the summary’s tokens', async () => {
    const agentId = await createAgent({
      model: 'openai:gpt-compact',
      compaction: { threshold_tokens: 20, keep_recent_messages: 2 },
    });
    const { threadId, replies } = await conversation(agentId, [
      'first question about the red kite migration routes',
      'second question about their wintering grounds',
      'third question about nesting',
    ]);
    expect(ofType(replies[0], 'context.compacted')).toEqual([]);
    expect(ofType(replies[1], 'context.compacted')).toEqual([
      expect.objectContaining({ summarized_messages: 1, summary_tokens: FAKE_USAGE.output }),
    ]);

    // The summary was asked of the vendor, unstreamed, with the older message in its transcript.
    const [asked] = summaryRequestsWith('user: first question about the red kite');
    expect(asked.body.messages[0]).toMatchObject({ role: 'system' });
    // The reply after it: the summary in the system prompt, the first question no longer a message of its own.
    const [afterSummary] = chatRequestsWith('second question about their wintering');
    const system = afterSummary.body.messages.find((m: { role: string }) => m.role === 'system');
    expect(system.content).toContain(
      `${SUMMARY_HEADING}\nVendor says: user: first question about the red kite`,
    );
    const userTexts = afterSummary.body.messages
      .filter((m: { role: string }) => m.role === 'user')
      .map((m: { content: unknown }) => JSON.stringify(m.content));
    expect(userTexts.some((text: string) => text.includes('first question'))).toBe(false);
    expect(completed(replies[1]).message.status).toBe('success');

    // The third run folds the earlier summary and two more messages into a new one.
    expect(ofType(replies[2], 'context.compacted')).toEqual([
      expect.objectContaining({ summarized_messages: 3 }),
    ]);
    expect((await summariesOf(threadId)).map((s) => s.summarized_messages)).toEqual([1, 3]);

    // Budgets count the summaries: three replies and two summaries, each at FAKE_USAGE.
    const perCall = FAKE_USAGE.input + FAKE_USAGE.output;
    const [{ used }] = await queryDatabase<{ used: string }>(
      deployment.environment.databaseUrl,
      `SELECT tokens_used + COALESCE((SELECT sum(tokens) FROM token_usage_pending WHERE agent_id = $1), 0) AS used
         FROM agents WHERE id = $1`,
      [agentId],
    );
    expect(Number(used)).toBe(5 * perCall);
    // And so does usage (an end user's budget reads it): the replies whose runs wrote them carry them.
    const usage = await client().get(`/usage?agent_id=${agentId}&group_by=agent`);
    expect(usage.body.rows).toEqual([
      expect.objectContaining({
        replies: 3,
        input_tokens: 5 * FAKE_USAGE.input,
        output_tokens: 5 * FAKE_USAGE.output,
      }),
    ]);
  });

  it('goes on with the whole history when the summary fails, and tries again at the next run', async () => {
    const agentId = await createAgent({
      model: 'openai:gpt-compact',
      compaction: { threshold_tokens: 20, keep_recent_messages: 2 },
    });
    openai.failUnstreamed = true;
    let threadId: string;
    try {
      const started = await conversation(agentId, [
        'opening words on the history of lighthouses',
        'follow-up on the keepers of lighthouses',
      ]);
      threadId = started.threadId;
      expect(ofType(started.replies[1], 'context.compacted')).toEqual([]);
      expect(completed(started.replies[1]).message.status).toBe('success');
      expect(await summariesOf(threadId)).toEqual([]);
      // The model was asked for a summary, and then got the whole history.
      expect(summaryRequestsWith('user: opening words on the history of lighthouses').length).toBeGreaterThan(
        0,
      );
      const [whole] = chatRequestsWith('follow-up on the keepers');
      expect(JSON.stringify(whole.body.messages)).toContain('opening words on the history of lighthouses');
    } finally {
      openai.failUnstreamed = false;
    }
    const next = await say(threadId, 'and the last lighthouse keeper');
    expect(ofType(next, 'context.compacted')).toEqual([expect.objectContaining({ summarized_messages: 3 })]);
    expect(await summariesOf(threadId)).toHaveLength(1);
  });

  it('summarizes at the next run when asked (POST /chat/{id}/compact), even with automatic compaction off', async () => {
    const agentId = await createAgent({ compaction: { threshold_tokens: 0, keep_recent_messages: 1 } });
    const { threadId, replies } = await conversation(agentId, ['/say one', '/say two']);
    expect(replies.flatMap((lines) => ofType(lines, 'context.compacted'))).toEqual([]);

    expect((await client().post(`/chat/${threadId}/compact?user_id=someone-else`, {})).status).toBe(404);
    expect((await client().post(`/chat/00000000-0000-4000-8000-000000000000/compact`, {})).status).toBe(404);
    const asked = await client().post(`/chat/${threadId}/compact?user_id=${USER}`, {});
    expect(asked.status).toBe(204);

    const next = await say(threadId, '/say three');
    expect(ofType(next, 'context.compacted')).toEqual([expect.objectContaining({ summarized_messages: 4 })]);
    // Answered: the run after it does not summarize again.
    expect(ofType(await say(threadId, '/say four'), 'context.compacted')).toEqual([]);
  });
});
