import { runEventKeys } from '@app/run-events';
import { useDeployment } from '../support/deployment';
import { queryDatabase } from '../support/test-environment';
import { startSlowReply, startThread } from './replies.support';
import { Line, numbered, OpenStream, until } from './stream.support';

/**
 * Store, then publish (issue 29): a client never sees a line that PostgreSQL does not hold. A model that streams
 * for seconds has its step's row written only when the step ends, so the words streamed before that are held by
 * the run and stored by the stream journal first. Checked on real processes: at moments in the middle of a
 * slow reply, every line the client has is in PostgreSQL; when the reply ends, the journal is gone and the
 * stored reply is exactly what was streamed.
 */
const deployment = useDeployment({ workers: 1, workerEnv: { WORKER_HEALTH_PORT: '0' }, agent: true });

/** The seqs of the reply's lines PostgreSQL holds in its journal. */
async function journaledSeqs(replyId: string): Promise<Set<number>> {
  const rows = await queryDatabase<{ lines: string }>(
    deployment.environment.databaseUrl,
    'SELECT lines FROM run_stream_journal WHERE message_id = $1',
    [replyId],
  );
  return new Set(rows.flatMap((row) => row.lines.split('\n').map((line) => (JSON.parse(line) as Line).seq!)));
}

it('streams a slow reply as it comes, each word stored before a client sees it', async () => {
  const { words, replyId, stream } = await startSlowReply(deployment, 30, 60);

  // Three looks in the middle of the reply: whatever the client holds, PostgreSQL held first.
  let looks = 0;
  for (const word of ['w5 ', 'w15 ', 'w25 ']) {
    // Words streamed within one hold window may travel as one line (CONTRACTS §5).
    await stream.waitFor((line) => line.type === 'text.delta' && (line.delta as string).includes(word));
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
  expect(deployment.worker.output).not.toMatch(/stream journal write failed/);
});

/**
 * Consecutive deltas of one step within the hold window travel as one line (CONTRACTS §5): the joined deltas are
 * exactly the stored content, seqs stay gap-free, and a replay from PostgreSQL (the Redis log gone) cuts the
 * content exactly as the live stream did.
 */
describe('deltas joined within the hold window', () => {
  async function streamed(content: string): Promise<{ lines: Line[]; url: string; replyId: string }> {
    const { replyId } = await startThread(deployment.client(), deployment.agentId, 'u1', content);
    const url = `${deployment.url}/chat/messages/${replyId}/stream`;
    return { lines: numbered(await new OpenStream(url, deployment.org.key).all()), url, replyId };
  }

  async function expectJoinedAndReplayed(words: string[], content: string): Promise<Line[]> {
    const { lines, url, replyId } = await streamed(content);
    expect(lines.map((line) => line.seq)).toEqual(lines.map((_, index) => index));
    const completed = lines.at(-1) as Line & {
      message: { content: string; status: string; thread_id: string };
    };
    expect(completed).toMatchObject({ type: 'message.completed', message: { status: 'success' } });
    const deltas = lines.filter((line) => line.type === 'text.delta').map((line) => line.delta as string);
    expect(deltas.join('')).toBe(words.join(' '));
    expect(completed.message.content).toBe(deltas.join(''));
    const thread = await deployment.client().get(`/chat/${completed.message.thread_id}`);
    expect((thread.body as { messages: { content: string }[] }).messages[1].content).toBe(deltas.join(''));

    // The Redis log gone: the replay rebuilt from PostgreSQL is the same lines, the same deltas on the same seqs.
    await deployment.redis.del(runEventKeys(deployment.environment.redisPrefix, replyId).stream);
    const replayed = numbered(await new OpenStream(url, deployment.org.key).all());
    expect(replayed.map(({ seq, type, delta }) => ({ seq, type, delta }))).toEqual(
      lines.map(({ seq, type, delta }) => ({ seq, type, delta })),
    );
    return deltas.map((delta) => ({ type: 'text.delta', delta }));
  }

  it('sends an instant 100-word reply in fewer lines than words', async () => {
    const words = Array.from({ length: 100 }, (_, index) => `i${index}`);
    const deltas = await expectJoinedAndReplayed(words, `/say ${words.join(' ')}`);
    expect(deltas.length).toBeLessThan(words.length / 4);
  });

  it('sends a paced reply (a word every 40 ms) in fewer lines than words, each line whole words', async () => {
    const words = Array.from({ length: 30 }, (_, index) => `p${index}`);
    const deltas = await expectJoinedAndReplayed(words, `/sleep 40\n/say ${words.join(' ')}`);
    expect(deltas.length).toBeLessThan(words.length);
    expect(deltas.length).toBeGreaterThan(1);
    for (const { delta } of deltas) expect(delta).toMatch(/^(p\d+ ?)+$/);
  });
});
