import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';
import { Line, numbered, OpenStream, until } from './stream.support';

/**
 * Store, then publish (issue 29): a client never sees a line that PostgreSQL does not hold. A model that streams
 * for seconds has its step's row written only when the step ends, so the words streamed before that are held by
 * the run and stored by the stream journal first. Checked on real processes: at moments in the middle of a
 * slow reply, every line the client has is in PostgreSQL; when the reply ends, the journal is gone and the
 * stored reply is exactly what was streamed.
 */
let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess;
let org: OrgFixture;
let agentId: string;

beforeAll(async () => {
  environment = await createTestEnvironment();
  [gateway, worker] = await Promise.all([
    startGateway(environment.env),
    startWorker(environment.env, { WORKER_HEALTH_PORT: '0' }),
  ]);
  org = await createOrg(environment.env);
  agentId = (await createAgent(environment.env, org.org)).id;
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await environment?.dispose();
});

/** The seqs of the reply's lines PostgreSQL holds in its journal. */
async function journaledSeqs(replyId: string): Promise<Set<number>> {
  const rows = await queryDatabase<{ lines: string }>(
    environment.databaseUrl,
    'SELECT lines FROM run_stream_journal WHERE message_id = $1',
    [replyId],
  );
  return new Set(rows.flatMap((row) => row.lines.split('\n').map((line) => (JSON.parse(line) as Line).seq!)));
}

it('streams a slow reply word by word, each word stored before a client sees it', async () => {
  const words = Array.from({ length: 30 }, (_, index) => `w${index}`);
  const posted = await api(gateway.url!, org.key).post('/chat', {
    message: { content: `/sleep 60\n/say ${words.join(' ')}` },
    options: { agent_id: agentId, user_id: 'u1' },
  });
  expect(posted.status).toBe(200);
  const replyId = (posted.body as { messages: { id: string }[] }).messages[1].id;
  const stream = new OpenStream(`${gateway.url}/chat/messages/${replyId}/stream`, org.key);

  // Three looks in the middle of the reply: whatever the client holds, PostgreSQL held first.
  let looks = 0;
  for (const word of ['w5 ', 'w15 ', 'w25 ']) {
    await stream.waitFor((line) => line.type === 'text.delta' && line.delta === word);
    const seen = numbered(stream.lines).filter((line) => line.type !== 'message.started');
    const stored = await journaledSeqs(replyId);
    expect(seen.filter((line) => !stored.has(line.seq!))).toEqual([]);
    expect(seen.length).toBeGreaterThan(0);
    looks++;
  }
  expect(looks).toBe(3);

  const lines = numbered(await stream.all());
  const completed = lines.at(-1) as Line & { message: { content: string; status: string } };
  expect(completed).toMatchObject({ type: 'message.completed', message: { status: 'success' } });
  const deltas = lines.filter((line) => line.type === 'text.delta').map((line) => line.delta as string);
  expect(deltas.join('')).toBe(words.join(' '));
  expect(completed.message.content).toBe(deltas.join(''));
  // The reply ended: its step and final row hold it all, and the journal of its step in progress is gone.
  await until(async () => (await journaledSeqs(replyId)).size === 0);
  expect(worker.output).not.toMatch(/stream journal write failed/);
});
