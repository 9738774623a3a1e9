import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  encodeEvent,
  LIVE_INBOX_MAX_BYTES,
  ReplyStream,
  RunEvent,
  RunEventReader,
  runEventKeys,
  SharedSubscriber,
} from '@app/run-events';
import { REDIS_URL, RunEventRedis } from './run-event-redis';

const runEvents = new RunEventRedis('reader');
const { prefix } = runEvents;

let redis: Redis;
let subscriber: SharedSubscriber;
let reader: RunEventReader;

beforeAll(() => ({ redis, subscriber, reader } = runEvents.open()));

afterAll(() => runEvents.close());

/** The reply of `n` lines a worker would write: started, deltas, completed. */
function reply(messageId: string, deltas: number): RunEvent[] {
  const lines: RunEvent[] = [{ seq: 0, type: 'message.started', message_id: messageId, thread_id: 't' }];
  for (let i = 0; i < deltas; i += 1) lines.push({ seq: lines.length, type: 'text.delta', delta: `w${i} ` });
  lines.push({ seq: lines.length, type: 'message.completed', message: { id: messageId } });
  return lines;
}

const write = (messageId: string, event: RunEvent, how?: { log?: boolean; publish?: boolean }) =>
  runEvents.write(messageId, event, how);

const notStored = () => Promise.resolve(null);

function follow(messageId: string, after = -1, storedLines: () => Promise<RunEvent[] | null> = notStored) {
  return reader.follow(messageId, { after, heartbeatMs: 200, storedLines });
}

/** Every line of the stream until it ends (or `stopAfter` lines, or the timeout), parsed. */
async function collect(stream: ReplyStream, stopAfter = Infinity, timeoutMs = 5000) {
  const lines: Record<string, unknown>[] = [];
  const timer = setTimeout(() => stream.close(), timeoutMs);
  for await (const text of stream) {
    lines.push(JSON.parse(text.toString()) as Record<string, unknown>);
    if (lines.length >= stopAfter) break;
  }
  clearTimeout(timer);
  return lines;
}

const seqs = (lines: Record<string, unknown>[]) => lines.filter((l) => 'seq' in l).map((l) => l.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const numsub = (messageId: string) => runEvents.numsub(messageId);

/** A new reply's lines, none written yet, and a reader already following it, given `subscribeMs` to subscribe. */
async function followUnwritten(deltas: number, subscribeMs = 50) {
  const id = randomUUID();
  const events = reply(id, deltas);
  const collected = collect(follow(id));
  await sleep(subscribeMs);
  return { id, events, collected };
}

describe('RunEventReader', () => {
  it('replays every line of a finished reply to a late reader, then ends', async () => {
    const id = randomUUID();
    const events = reply(id, 5);
    for (const event of events) await write(id, event);
    const lines = await collect(follow(id));
    expect(lines).toEqual(events);
    expect(await numsub(id)).toBe(0);
  });

  it('reads a whole reply written right after its first read of the log, instead of ending empty', async () => {
    const id = randomUUID();
    const events = reply(id, 3);
    // The reply is written, up to message.completed and unpublished, right after the reader's first read.
    const racing = new Redis(REDIS_URL);
    const multi = racing.multi.bind(racing) as () => ReturnType<Redis['multi']>;
    let raced = false;
    racing.multi = (() => {
      const transaction = multi();
      const exec = transaction.exec.bind(transaction);
      transaction.exec = (async () => {
        const results = await exec();
        if (!raced) {
          raced = true;
          for (const event of events) await write(id, event, { publish: false });
        }
        return results;
      }) as typeof transaction.exec;
      return transaction;
    }) as typeof racing.multi;
    const racingReader = new RunEventReader(racing, subscriber, prefix);
    try {
      const lines = await collect(
        racingReader.follow(id, { after: -1, heartbeatMs: 200, storedLines: notStored }),
      );
      expect(raced).toBe(true);
      expect(lines).toEqual(events);
    } finally {
      racing.disconnect();
    }
  });

  it('follows a live reply line by line until message.completed', async () => {
    const { id, events, collected } = await followUnwritten(20);
    for (const event of events) {
      await write(id, event);
      await sleep(2);
    }
    expect(await collected).toEqual(events);
  });

  it('reads a batch published as one message (newline-joined lines) line by line, in seq order', async () => {
    const { id, events, collected } = await followUnwritten(12);
    const { channel } = runEventKeys(prefix, id);
    for (const batch of [events.slice(0, 5), events.slice(5)]) {
      for (const event of batch) await write(id, event, { publish: false });
      await redis.publish(channel, batch.map((event) => encodeEvent(event)).join('\n'));
    }
    expect(await collected).toEqual(events);
  });

  it('gives only the lines after `after`, live ones included', async () => {
    const id = randomUUID();
    const events = reply(id, 6);
    for (const event of events.slice(0, 4)) await write(id, event);
    const collected = collect(follow(id, 2));
    await sleep(50);
    for (const event of events.slice(4)) await write(id, event);
    expect(seqs(await collected)).toEqual(range(3, 7));
  });

  it('answers no line, at once, when `after` is at or past the last line (never a seq not above `after`)', async () => {
    const id = randomUUID();
    const events = reply(id, 2);
    for (const event of events) await write(id, event);
    const completed = events[events.length - 1];
    for (const after of [completed.seq, completed.seq + 10]) {
      const started = Date.now();
      expect(await collect(follow(id, after))).toEqual([]);
      expect(Date.now() - started).toBeLessThan(150);
    }
    expect(await collect(follow(id, completed.seq - 1))).toEqual([completed]);
  });

  it('closes with no line when `after` is beyond every line a live reply will write', async () => {
    const id = randomUUID();
    const events = reply(id, 2);
    for (const event of events.slice(0, 2)) await write(id, event);
    const collected = collect(follow(id, 40));
    await sleep(50);
    for (const event of events.slice(2)) await write(id, event);
    expect(await collected).toEqual([]);
  });

  it('writes each line once when it arrives both from the log and live', async () => {
    const id = randomUUID();
    const events = reply(id, 4);
    for (const event of events.slice(0, 3)) await write(id, event, { publish: false });
    const collected = collect(follow(id));
    await sleep(50);
    // Lines the reader already replayed come again over pub/sub (a writer that retried its publish).
    for (const event of events.slice(0, 3)) await write(id, event, { log: false });
    for (const event of events.slice(3)) await write(id, event);
    expect(await collected).toEqual(events);
  });

  it('loses and repeats nothing for readers opened at any moment while the reply is written', async () => {
    const id = randomUUID();
    const events = reply(id, 300);
    const readers: Promise<Record<string, unknown>[]>[] = [];
    for (const event of events) {
      await write(id, event);
      if (event.seq % 25 === 0) readers.push(collect(follow(id)));
      if (event.seq % 40 === 0) readers.push(collect(follow(id, event.seq - 3)));
    }
    for (const lines of await Promise.all(readers)) {
      const first = seqs(lines)[0] as number;
      expect(seqs(lines)).toEqual(range(first, events.length - 1));
      expect(lines).toEqual(events.slice(first));
    }
    expect(await numsub(id)).toBe(0);
  });

  it('fills a gap from the log when a live line skips seqs it never saw published', async () => {
    const id = randomUUID();
    const events = reply(id, 3);
    const stream = follow(id);
    const collected = collect(stream);
    await sleep(50);
    await write(id, events[0]);
    await sleep(20);
    await write(id, events[1], { publish: false });
    await write(id, events[2], { publish: false });
    const started = Date.now();
    for (const event of events.slice(3)) await write(id, event);
    expect(await collected).toEqual(events);
    // Filled at once from the log, not at the next idle poll.
    expect(Date.now() - started).toBeLessThan(150);
  });

  it('finds a message.completed whose publish was missed at the next idle poll', async () => {
    const { id, events, collected } = await followUnwritten(1);
    for (const event of events.slice(0, -1)) await write(id, event);
    await write(id, events[events.length - 1], { publish: false });
    expect(await collected).toEqual(events);
  });

  it('writes heartbeats while a pending reply has no lines yet, then follows it', async () => {
    const { id, events, collected } = await followUnwritten(1, 500);
    for (const event of events) await write(id, event);
    const lines = await collected;
    const heartbeats = lines.filter((line) => line.type === 'heartbeat');
    expect(heartbeats.length).toBeGreaterThanOrEqual(2);
    expect(heartbeats.every((line) => !('seq' in line))).toBe(true);
    expect(lines.filter((line) => line.type !== 'heartbeat')).toEqual(events);
  });

  it('replays from PostgreSQL when the Redis log is gone and the reply is finished', async () => {
    const id = randomUUID();
    const events = reply(id, 3);
    const stored = () => Promise.resolve(events);
    expect(await collect(follow(id, -1, stored))).toEqual(events);
    expect(await collect(follow(id, 2, stored))).toEqual(events.slice(3));
    // At or past the last line: no line (CONTRACTS §5).
    expect(await collect(follow(id, 3, stored))).toEqual(events.slice(-1));
    expect(await collect(follow(id, 4, stored))).toEqual([]);
    expect(await collect(follow(id, 9, stored))).toEqual([]);
  });

  it('finishes from PostgreSQL a reply whose log has a hole (lines a failover lost), gap-free', async () => {
    const id = randomUUID();
    const events = reply(id, 4);
    // A promoted replica never got seq 2-3 and a writer (one from before the append script refused it) went on.
    for (const event of events)
      if (event.seq !== 2 && event.seq !== 3) await write(id, event, { publish: false });
    let asked = 0;
    const stored = () => {
      asked += 1;
      return Promise.resolve(events);
    };
    expect(await collect(follow(id, -1, stored))).toEqual(events);
    expect(await collect(follow(id, 1, stored))).toEqual(events.slice(2));
    expect(asked).toBe(2);
  });

  it('finishes from PostgreSQL a reply whose log lost its completion, at the first silent heartbeat', async () => {
    const id = randomUUID();
    const events = reply(id, 2);
    for (const event of events.slice(0, -1)) await write(id, event);
    const started = Date.now();
    const lines = await collect(follow(id, -1, () => Promise.resolve(events)));
    expect(lines.filter((line) => line.type !== 'heartbeat')).toEqual(events);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('keeps waiting while PostgreSQL says the reply is live, and ends when it finishes there', async () => {
    const id = randomUUID();
    const events = reply(id, 2);
    let finished = false;
    const collected = collect(follow(id, -1, () => Promise.resolve(finished ? events : null)));
    await sleep(300);
    finished = true;
    const lines = await collected;
    expect(lines.some((line) => line.type === 'heartbeat')).toBe(true);
    expect(lines.filter((line) => line.type !== 'heartbeat')).toEqual(events);
  });

  it('releases the subscription when the reader closes mid-stream', async () => {
    const id = randomUUID();
    const events = reply(id, 5);
    for (const event of events.slice(0, 3)) await write(id, event);
    const stream = follow(id);
    const lines = await collect(stream, 3);
    expect(seqs(lines)).toEqual([0, 1, 2]);
    expect(await numsub(id)).toBe(0);

    // Closed while waiting for the next line (not at a yield).
    const waiting = follow(id, 2);
    const pending = collect(waiting);
    await sleep(50);
    expect(await numsub(id)).toBe(1);
    waiting.close();
    expect(await pending).toEqual([]);
    await sleep(20);
    expect(await numsub(id)).toBe(0);
    expect(subscriber.listenerCount(runEventKeys(prefix, id).channel)).toBe(0);
  });

  it('ends every open stream on closeAll, and any opened after it once its replay is written', async () => {
    const closing = new RunEventReader(redis, subscriber, prefix);
    const id = randomUUID();
    const events = reply(id, 3);
    await write(id, events[0]);
    const open = [0, 1, 2].map(() =>
      collect(closing.follow(id, { after: -1, heartbeatMs: 5000, storedLines: notStored })),
    );
    await sleep(50);
    closing.closeAll();
    for (const lines of await Promise.all(open)) expect(lines).toEqual(events.slice(0, 1));
    const late = closing.follow(id, { after: -1, heartbeatMs: 5000, storedLines: notStored });
    expect(await collect(late)).toEqual(events.slice(0, 1));
    await sleep(20);
    expect(await numsub(id)).toBe(0);
  });

  it('shares one subscription among the readers of a message and drops it with the last one', async () => {
    const id = randomUUID();
    const { channel } = runEventKeys(prefix, id);
    const a = follow(id);
    const b = follow(id);
    const collectedA = collect(a);
    const collectedB = collect(b);
    await sleep(50);
    expect(subscriber.listenerCount(channel)).toBe(2);
    expect(await numsub(id)).toBe(1);
    a.close();
    await collectedA;
    await sleep(20);
    expect(await numsub(id)).toBe(1);
    const events = reply(id, 1);
    for (const event of events) await write(id, event);
    expect(await collectedB).toEqual(events);
    await sleep(20);
    expect(await numsub(id)).toBe(0);
    expect(subscriber.channelCount).toBe(0);
  });

  it('hands every reader of a reply the same bytes of a live line larger than its inbox, not a copy each', async () => {
    const id = randomUUID();
    const readers = [follow(id), follow(id), follow(id)];
    const received: Buffer[][] = readers.map(() => []);
    const done = readers.map(async (stream, index) => {
      for await (const line of stream) received[index].push(line);
    });
    // Every reader follows live (listening, its catch-up read done) before the line is written: one that still
    // read its catch-up would get the line from there, as bytes of its own. A loaded machine may take a while.
    const { channel } = runEventKeys(prefix, id);
    for (let waited = 0; subscriber.listenerCount(channel) < readers.length && waited < 5000; waited += 20)
      await sleep(20);
    await sleep(100);
    expect(await numsub(id)).toBe(1);
    const completed: RunEvent = {
      seq: 0,
      type: 'message.completed',
      message: { id, content: 'x'.repeat(LIVE_INBOX_MAX_BYTES * 2) },
    };
    await write(id, completed);
    await Promise.all(done);
    const [first, ...others] = received.map((lines) => lines.at(-1)!);
    expect(JSON.parse(first.toString())).toEqual(completed);
    for (const other of others) expect(other.buffer).toBe(first.buffer);
  });
});
