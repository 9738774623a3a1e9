/**
 * The floor's service (bench/floor.ts): the conversation workload built from Fastify, pg, ioredis and BullMQ alone,
 * no Parley code. `node service.js gateway` or `node service.js worker`, with DATABASE_URL and REDIS_URL (and PORT
 * for the gateway); each prints `ready` once it serves.
 *
 * A reply's lines are JSON objects that begin with `{"seq":n,`: the n-th line of the reply, from 0. Each is appended
 * to the reply's Redis stream, then published on its channel; a reader subscribes first, reads the stream, and
 * drops what it already relayed by seq, so no line is missed nor sent twice.
 *
 * FLOOR_LINES says what a line is, and when it goes out:
 * - `joined` (the default, Parley's guarantee): store, then publish. A run's words wait for the worker's next
 *   journal INSERT (every 100 ms, all live runs in one statement) and go out after its commit, joined into one
 *   delta line (CONTRACTS §5), as Parley's STREAM_HOLD_MS does: about 2.5 words a line at 40 ms a word.
 * - `word`: one line per word, published at once and journaled after (a line a crash can take back).
 */
import { Queue, Worker } from 'bullmq';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { Pool } from 'pg';

const QUEUE = 'floor-runs';
const streamKey = (replyId: string) => `floor:stream:${replyId}`;
const channelKey = (replyId: string) => `floor:channel:${replyId}`;
/** A finished reply's stream stays this long for late readers. */
const STREAM_TTL_SECONDS = 60;
/** How often the worker journals the new lines of all its live runs, in one INSERT. */
const JOURNAL_INTERVAL_MS = 100;
const SEQ_OFFSET = '{"seq":'.length;
const JOIN_LINES = process.env.FLOOR_LINES !== 'word';

const databaseUrl = process.env.DATABASE_URL;
const redisUrl = new URL(process.env.REDIS_URL ?? '');
// BullMQ's connections must not give up on a command (its blocking reads wait indefinitely).
const redisOptions = { host: redisUrl.hostname, port: Number(redisUrl.port), maxRetriesPerRequest: null };

/** Thread, user message and live reply in one round trip. */
const CREATE_CHAT = `
  WITH thread AS (INSERT INTO threads DEFAULT VALUES RETURNING id),
  question AS (
    INSERT INTO messages (thread_id, role, content, status) SELECT id, 'user', $1, 'completed' FROM thread RETURNING id
  ),
  reply AS (
    INSERT INTO messages (thread_id, role, content, status) SELECT id, 'assistant', '', 'live' FROM thread RETURNING id
  )
  SELECT question.id AS question_id, reply.id AS reply_id FROM question, reply`;

/** Marks the reply running and reads the thread's other messages, oldest first. */
const START_RUN = `
  WITH started AS (UPDATE messages SET status = 'running' WHERE id = $1 AND status = 'live' RETURNING thread_id)
  SELECT m.role, m.content FROM messages m JOIN started ON m.thread_id = started.thread_id
  WHERE m.id <> $1 ORDER BY m.created_at`;

const JOURNAL_LINES = `
  INSERT INTO journal (message_id, seq, line) SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[])`;

/** The reply's text and status stored, its journal gone: the stream's durable copy is no longer needed. */
const FINISH_RUN = `
  WITH stored AS (UPDATE messages SET content = $2, status = 'completed' WHERE id = $1)
  DELETE FROM journal WHERE message_id = $1`;

async function gateway(): Promise<void> {
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  const redis = new Redis(redisOptions);
  const subscriber = new Redis(redisOptions);
  const queue = new Queue(QUEUE, { connection: redis });

  /** One subscriber connection for the process; each channel's readers, and the subscription they wait on. */
  const channels = new Map<string, { readers: Set<(line: string) => void>; subscribed: Promise<unknown> }>();
  subscriber.on('message', (channel: string, line: string) => {
    channels.get(channel)?.readers.forEach((read) => read(line));
  });
  const listen = async (channel: string, read: (line: string) => void) => {
    let entry = channels.get(channel);
    if (!entry) {
      entry = { readers: new Set(), subscribed: subscriber.subscribe(channel) };
      channels.set(channel, entry);
    }
    const { readers, subscribed } = entry;
    readers.add(read);
    await subscribed;
    return () => {
      readers.delete(read);
      if (readers.size === 0 && channels.get(channel) === entry) {
        channels.delete(channel);
        void subscriber.unsubscribe(channel);
      }
    };
  };

  const app = Fastify();
  app.post<{ Body: { message: { content: string } } }>('/chat', async (request) => {
    const { rows } = await pool.query<{ question_id: string; reply_id: string }>({
      name: 'create-chat',
      text: CREATE_CHAT,
      values: [request.body.message.content],
    });
    const { question_id: questionId, reply_id: replyId } = rows[0];
    await queue.add('run', { replyId }, { removeOnComplete: true, removeOnFail: true });
    return { messages: [{ id: questionId }, { id: replyId }] };
  });

  app.get<{ Params: { id: string } }>('/chat/messages/:id/stream', async (request, reply) => {
    const replyId = request.params.id;
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    let next = 0;
    let ended = false;
    // Lines published while the stream is read wait here, then go out in order with duplicates dropped.
    let early: string[] | undefined = [];
    const relay = (line: string) => {
      const seq = Number.parseInt(line.slice(SEQ_OFFSET), 10);
      if (ended || seq < next) return;
      next = seq + 1;
      response.write(`${line}\n`);
      if (line.includes('"type":"message.completed"')) {
        ended = true;
        stop();
        response.end();
      }
    };
    const stop = await listen(channelKey(replyId), (line) => (early ? early.push(line) : relay(line)));
    response.once('close', stop);
    const held = await redis.xrange(streamKey(replyId), '-', '+');
    for (const [, fields] of held) relay(fields[1]);
    const published = early;
    early = undefined;
    published.forEach(relay);
  });

  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  process.once('SIGTERM', () => {
    void app.close().then(() => Promise.all([queue.close(), pool.end()]).finally(() => process.exit(0)));
  });
}

/** XADD of a line to the reply's stream, then PUBLISH on its channel; with a TTL (the last line), EXPIRE too. */
const APPEND_LINE = `
  redis.call('XADD', KEYS[1], '*', 'l', ARGV[1])
  redis.call('PUBLISH', KEYS[2], ARGV[1])
  if ARGV[2] then redis.call('EXPIRE', KEYS[1], ARGV[2]) end`;
type AppendLine = (stream: string, channel: string, line: string, ttlSeconds?: number) => Promise<unknown>;

interface Run {
  replyId: string;
  /** The seq of the reply's next line. */
  seq: number;
  /** Lines not yet journaled (`word`), or the words not yet journaled, joined (`joined`). */
  lines: string[];
  held: string;
}

const deltaLine = (seq: number, delta: string) =>
  `{"seq":${seq},"type":"text.delta","delta":${JSON.stringify(delta)}}`;

/** `/sleep MS` and `/say WORDS…` of the user's message: the fake model's pace and text. */
function instructions(content: string): { paceMs: number; words: string[] } {
  const pace = /^\/sleep (\d+)$/m.exec(content);
  const say = /^\/say (.*)$/m.exec(content);
  return { paceMs: pace ? Number(pace[1]) : 0, words: say ? say[1].split(' ') : ['ok'] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function worker(): Promise<void> {
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  // No auto-pipelining: at 113/s it cost the worker 0.2 ms more per conversation and Redis 0.15 ms less, and
  // delayed the first delta, since few lines fall due in the same turn of the event loop.
  const redis = new Redis(redisOptions) as Redis & { appendLine: AppendLine };
  // One EVALSHA per line costs client and Redis together less than a pipeline of XADD and PUBLISH (measured
  // 21 µs against 30 µs per line); a reader subscribed before its XRANGE sees each line in one or both.
  redis.defineCommand('appendLine', { numberOfKeys: 2, lua: APPEND_LINE });
  const live = new Set<Run>();
  let journaling: Promise<unknown> = Promise.resolve();

  // The new lines are taken now, so a run that finishes later waits for `journaling` only.
  const journalTimer = setInterval(() => {
    const taken: { run: Run; line: string }[] = [];
    for (const run of live) {
      if (JOIN_LINES && run.held) taken.push({ run, line: deltaLine(run.seq++, run.held) });
      if (JOIN_LINES) run.held = '';
      else taken.push(...run.lines.map((line) => ({ run, line })));
      run.lines = [];
    }
    if (taken.length === 0) return;
    const values = [
      taken.map(({ run }) => run.replyId),
      taken.map(({ line }) => Number.parseInt(line.slice(SEQ_OFFSET), 10)),
      taken.map(({ line }) => line),
    ];
    journaling = journaling.then(async () => {
      await pool.query({ name: 'journal-lines', text: JOURNAL_LINES, values });
      // Store, then publish: the joined lines go out once their INSERT has committed.
      if (JOIN_LINES) await Promise.all(taken.map(({ run, line }) => append(run.replyId, line)));
    });
  }, JOURNAL_INTERVAL_MS);

  // ioredis would send an absent TTL as an empty argument, which the script takes for one.
  const append = (replyId: string, line: string, ttlSeconds?: number) =>
    ttlSeconds === undefined
      ? redis.appendLine(streamKey(replyId), channelKey(replyId), line)
      : redis.appendLine(streamKey(replyId), channelKey(replyId), line, ttlSeconds);

  const emit = (run: Run, delta: string) => {
    if (JOIN_LINES) {
      run.held += delta;
      return Promise.resolve();
    }
    const line = deltaLine(run.seq++, delta);
    run.lines.push(line);
    return append(run.replyId, line);
  };

  const runReply = async (replyId: string) => {
    const { rows } = await pool.query<{ role: string; content: string }>({
      name: 'start-run',
      text: START_RUN,
      values: [replyId],
    });
    const question = rows.filter((row) => row.role === 'user').at(-1);
    if (!question) return; // not live any more: another delivery of the job ran it
    const { paceMs, words } = instructions(question.content);
    const run: Run = { replyId, seq: 0, lines: [], held: '' };
    live.add(run);
    for (let index = 0; index < words.length; index++) {
      if (index > 0 && paceMs > 0) await sleep(paceMs);
      // No space after the last word: the deltas joined are the text the client checks.
      await emit(run, index < words.length - 1 ? `${words[index]} ` : words[index]);
    }
    // Store, then publish: the last words and the completed line go out once the reply's text is committed, and
    // no journal INSERT of its lines can land after the DELETE.
    live.delete(run);
    await journaling;
    await pool.query({ name: 'finish-run', text: FINISH_RUN, values: [replyId, words.join(' ')] });
    if (run.held) await append(replyId, deltaLine(run.seq++, run.held));
    await append(replyId, `{"seq":${run.seq},"type":"message.completed"}`, STREAM_TTL_SECONDS);
  };

  const runs = new Worker<{ replyId: string }>(QUEUE, (job) => runReply(job.data.replyId), {
    connection: redisOptions,
    concurrency: 500,
  });
  await runs.waitUntilReady();
  process.once('SIGTERM', () => {
    clearInterval(journalTimer);
    void runs.close().then(() => Promise.all([journaling, pool.end()]).finally(() => process.exit(0)));
  });
}

const role = process.argv[2];
(role === 'gateway'
  ? gateway()
  : role === 'worker'
    ? worker()
    : Promise.reject(new Error(`role ${role}?`))
).then(
  () => process.stdout.write('ready\n'),
  (error: Error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  },
);
