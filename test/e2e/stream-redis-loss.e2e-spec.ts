import { ChildProcess, spawn } from 'node:child_process';
import { ParleyClient } from '@app/client';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { AppProcess, freePort, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';
import { Line, numbered, OpenStream, until } from './stream.support';

/**
 * Issue #17 item 1: Redis loses its data while a reply's last step has streamed (and, store then publish, been
 * journaled in PostgreSQL) but the reply is not finished. The stack runs on a private redis-server (no persistence) that this test freezes, kills
 * and starts again empty: the run's appends are refused, the sweep re-runs the reply, and the re-run must
 * publish again exactly the lines the first run did, so the client already holding some of them gets the rest
 * once each, and any `after` before its end ends with message.completed.
 */
let environment: TestEnvironment;
let redisPort: number;
let redisServer: ChildProcess;
let gateway: AppProcess;
let worker: AppProcess;
let org: OrgFixture;
let agentId: string;

function startRedis(): ChildProcess {
  return spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
}

async function redisAnswers(): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const probe = new Redis(redisPort, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

beforeAll(async () => {
  redisPort = await freePort();
  redisServer = startRedis();
  await until(redisAnswers);
  environment = await createTestEnvironment({
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    RUN_SWEEP_INTERVAL_MS: '500',
    RUN_SWEEP_AFTER_MS: '1000',
    STREAM_HEARTBEAT_MS: '15000',
  });
  gateway = await startGateway(environment.env);
  worker = await startWorker(environment.env, { WORKER_HEALTH_PORT: '0' });
  org = await createOrg(environment.env);
  agentId = (await createAgent(environment.env, org.org)).id;
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop()]);
  redisServer?.kill('SIGKILL');
  await environment?.dispose();
});

const words = Array.from({ length: 24 }, (_, index) => `word${index}`);

describe('a reply whose Redis log is lost', () => {
  it('is re-run with the same lines, and every open or later stream ends with message.completed', async () => {
    const client = new ParleyClient({ baseUrl: gateway.url!, token: org.key });
    const thread = await client.startThread({
      message: { content: `/sleep 120\n/say ${words.join(' ')}` },
      options: { agent_id: agentId, user_id: 'u1' },
    });
    const replyId = thread.messages[1].id;
    const url = `${gateway.url}/chat/messages/${replyId}/stream`;
    const open = new OpenStream(url, org.key);
    await open.waitFor((line) => line.type === 'text.delta' && (line.delta as string).includes('word6 '));
    const seenBefore = open.lines
      .filter((line) => line.type === 'text.delta')
      .map((line) => line.delta as string);

    // Freeze Redis: the run goes on storing what it streams in PostgreSQL (the journal of its step in progress),
    // then publishing it into a socket nobody reads.
    redisServer.kill('SIGSTOP');
    await until(async () => {
      const rows = await queryDatabase<{ lines: string }>(
        environment.databaseUrl,
        'SELECT lines FROM run_stream_journal WHERE message_id = $1',
        [replyId],
      );
      return rows.some((row) => row.lines.includes(words[words.length - 1]));
    }, 20000);
    // Then it dies and comes back without its data.
    redisServer.kill('SIGKILL');
    await new Promise((resolve) => redisServer.once('exit', resolve));
    redisServer = startRedis();
    await until(redisAnswers);

    expect(await open.ended).toBe(true);
    const lines = numbered(open.lines);
    expect(lines.map((line) => line.seq)).toEqual(lines.map((_, index) => index));
    const completed = lines.at(-1) as Line & { message: { content: string; status: string } };
    expect(completed.type).toBe('message.completed');
    expect(completed.message.status).toBe('success');
    const deltas = lines.filter((line) => line.type === 'text.delta').map((line) => line.delta as string);
    // Cut as the first run streamed it (a word, or the words of one hold window), not the stored text as one delta.
    expect(deltas.join('')).toBe(words.join(' '));
    expect(deltas.length).toBeGreaterThan(words.length / 2);
    for (const delta of deltas) expect(delta).toMatch(/^(word\d+ ?)+$/);
    expect(deltas.slice(0, seenBefore.length)).toEqual(seenBefore);
    expect(deltas.join('')).toBe(completed.message.content);

    // The rebuilt log answers every `after` from where the client was, and past its end no line.
    const resumed = new OpenStream(`${url}?after=10`, org.key);
    expect(numbered(await resumed.all())).toEqual(lines.slice(11));
    const beyond = new OpenStream(`${url}?after=${completed.seq! + 20}`, org.key);
    expect(numbered(await beyond.all())).toEqual([]);
    // The run learns that its log is gone: lost lines (its claim went with the data) or another run's claim.
    expect(worker.output).toMatch(/run lost its Redis log|taken over by another worker/);
  });
});
