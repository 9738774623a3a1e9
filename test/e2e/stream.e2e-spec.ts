import { runEventKeys } from '@app/run-events';
import { useDeployment } from '../support/deployment';
import { OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway } from '../support/processes';
import { Line, numbered, OpenStream } from './stream.support';

/**
 * The reply stream of CONTRACTS §5 on real processes: replies written by a worker running the builtin model,
 * streamed by two gateway replicas, replayed from Redis and, once its copy is gone, from PostgreSQL.
 */
const USER = 'stream-user';
const HEARTBEAT_MS = 300;

const deployment = useDeployment({
  env: { STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) },
  gateways: 2,
  workers: 1,
  workerEnv: { WORKER_HEALTH_PORT: '0' },
  agent: true,
});
let other: OrgFixture;

beforeAll(async () => {
  other = await deployment.createOrg();
});

/** POST /chat on `base`: the ids of the thread, the user's message and the pending reply. */
async function startChat(content: string, base = deployment.url) {
  const response = await api(base, deployment.org.key).post('/chat', {
    message: { content },
    options: { agent_id: deployment.agentId, user_id: USER },
  });
  expect(response.status).toBe(200);
  const [question, reply] = response.body.messages as { id: string }[];
  return { threadId: response.body.id as string, questionId: question.id, replyId: reply.id };
}

const streamUrl = (base: string, messageId: string, query = '') =>
  `${base}/chat/messages/${messageId}/stream${query}`;

/** Opens the stream and reads it to its end. */
async function readAll(base: string, messageId: string, query = ''): Promise<Line[]> {
  const stream = new OpenStream(streamUrl(base, messageId, query), deployment.org.key);
  expect(await stream.ended).toBe(true);
  expect(stream.status).toBe(200);
  return stream.lines;
}

/** Every invariant of a whole stream (CONTRACTS §5). */
function expectWellFormed(lines: Line[]): void {
  const seqLines = numbered(lines);
  expect(seqLines.map((line) => line.seq)).toEqual(seqLines.map((_, index) => index));
  expect(seqLines[0].type).toBe('message.started');
  expect(seqLines.at(-1)!.type).toBe('message.completed');
  expect(seqLines.filter((line) => line.type === 'message.completed')).toHaveLength(1);
  const message = seqLines.at(-1)!.message as { content: string; events: Line[]; live: boolean };
  const deltas = seqLines.filter((line) => line.type === 'text.delta').map((line) => line.delta);
  expect(deltas.join('')).toBe(message.content);
  expect(message.live).toBe(false);
  expect(message.events).toEqual(
    seqLines.filter((line) => line.type !== 'text.delta' && line.type !== 'message.completed'),
  );
}

describe('GET /chat/messages/{message_id}/stream', () => {
  it('streams a reply live: seq from 0 without gaps, deltas joining to the content, message.completed last', async () => {
    const { replyId, threadId } = await startChat('Hello stream, how are you?');
    const lines = await readAll(deployment.url, replyId);
    expectWellFormed(lines);
    expect(numbered(lines)[0]).toEqual({
      seq: 0,
      type: 'message.started',
      message_id: replyId,
      thread_id: threadId,
      agent_version: 1,
    });
    const stored = await deployment.client().get(`/chat/${threadId}`);
    expect(numbered(lines).at(-1)!.message).toEqual(stored.body.messages[1]);
  });

  it('replays a finished reply identically from Redis, after `after`, and from PostgreSQL once Redis lost it', async () => {
    const { replyId } = await startChat('/tool clock {}\n/ask Which one? | this | that');
    const live = await readAll(deployment.url, replyId);
    expectWellFormed(live);
    expect(live.map((line) => line.type)).toEqual(
      expect.arrayContaining(['tool.call', 'tool.result', 'questions']),
    );

    expect(await readAll(deployment.gateways[1].url!, replyId)).toEqual(live);
    expect(await readAll(deployment.url, replyId, '?after=3')).toEqual(live.slice(4));

    await deployment.redis.del(runEventKeys(deployment.environment.redisPrefix, replyId).stream);
    expect(await readAll(deployment.gateways[1].url!, replyId)).toEqual(live);
    expect(await readAll(deployment.url, replyId, '?after=2')).toEqual(live.slice(3));
    // Asked for after its last line, an ended reply's stream answers no line (CONTRACTS §5), from PostgreSQL too.
    expect(await readAll(deployment.url, replyId, `?after=${live.length - 1}`)).toEqual([]);
    expect(await readAll(deployment.url, replyId, `?after=${live.length + 5}`)).toEqual([]);
    expect(await readAll(deployment.url, replyId, `?after=${live.length - 2}`)).toEqual([
      live[live.length - 1],
    ]);
  });

  it('rebuilds the lines of a failed reply from PostgreSQL identically too', async () => {
    const { replyId } = await startChat('/fail');
    const live = await readAll(deployment.url, replyId);
    expectWellFormed(live);
    expect(numbered(live).at(-1)!.message).toMatchObject({ status: 'error' });
    await deployment.redis.del(runEventKeys(deployment.environment.redisPrefix, replyId).stream);
    expect(await readAll(deployment.url, replyId)).toEqual(live);
  });

  it('serves a reply posted on one replica from the other, a late reader included', async () => {
    const { replyId } = await startChat(
      '/sleep 30\n/say one two three four five six seven eight',
      deployment.gateways[1].url!,
    );
    const early = new OpenStream(streamUrl(deployment.url, replyId), deployment.org.key);
    await early.waitFor((line) => line.type === 'text.delta');
    const late = await readAll(deployment.url, replyId);
    expect(await early.all()).toEqual(late);
    expectWellFormed(late);
    expect(numbered(late).at(-1)!.message).toMatchObject({
      content: 'one two three four five six seven eight',
    });
  });

  it('resumes with `after` on a restarted gateway, losing and repeating nothing', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const restarting = await startGateway(deployment.environment.env);
    let resumedOn: AppProcess | undefined;
    try {
      const { replyId } = await startChat(`/sleep 100\n/say ${words}`);
      const first = new OpenStream(streamUrl(restarting.url!, replyId), deployment.org.key);
      await first.waitFor((line) => line.type === 'text.delta' && (line.delta as string).includes('word5 '));
      await restarting.kill();
      expect(await first.ended).toBe(false);
      resumedOn = await startGateway(deployment.environment.env);
      const last = numbered(first.lines).at(-1)!.seq!;
      const rest = await readAll(resumedOn.url!, replyId, `?after=${last}`);
      const whole = [...numbered(first.lines), ...numbered(rest)];
      expectWellFormed(whole);
      expect(numbered(whole).at(-1)!.message).toMatchObject({ content: words });
    } finally {
      await Promise.all([restarting.stop(), resumedOn?.stop()]);
    }
  });

  it('writes heartbeats, without seq, while nothing happens', async () => {
    const { replyId } = await startChat(`/sleep ${HEARTBEAT_MS * 3}\n/say slow reply`);
    const lines = await readAll(deployment.url, replyId);
    const heartbeats = lines.filter((line) => line.type === 'heartbeat');
    expect(heartbeats.length).toBeGreaterThanOrEqual(1);
    expect(heartbeats.every((line) => JSON.stringify(line) === '{"type":"heartbeat"}')).toBe(true);
    expectWellFormed(lines);
  });

  it('streams a user message as its single message.completed line', async () => {
    const { questionId, replyId } = await startChat('Just a question');
    const lines = await readAll(deployment.gateways[1].url!, questionId);
    expect(lines).toEqual([
      {
        seq: 0,
        type: 'message.completed',
        message: expect.objectContaining({
          id: questionId,
          role: 'user',
          content: 'Just a question',
          events: null,
        }),
      },
    ]);
    expectWellFormed(await readAll(deployment.url, replyId));
  });

  it("answers 404 for another organization's message and another user's", async () => {
    const { replyId } = await startChat('Private');
    const foreign = await deployment.client(other.key).get(`/chat/messages/${replyId}/stream`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Message not found' });
    const otherUser = await deployment.client().get(`/chat/messages/${replyId}/stream?user_id=someone`);
    expect(otherUser.status).toBe(404);
    expectWellFormed(await readAll(deployment.url, replyId, `?user_id=${USER}`));
  });
});
