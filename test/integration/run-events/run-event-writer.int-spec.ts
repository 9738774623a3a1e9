import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadSettings } from '@app/config';
import { RunEventLogLostError, runEventKeys, RunEventWriter, RunSupersededError } from '@app/run-events';

describe('RunEventWriter', () => {
  const prefix = `writer_spec_${randomBytes(4).toString('hex')}`;
  const settings = loadSettings({
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    RUN_EVENTS_TTL_SECONDS: '120',
  });
  const redis = new Redis(settings.redisUrl);
  const writer = new RunEventWriter(settings, redis);
  const listeners: Redis[] = [];
  /** The reply's row exists: a claim for it goes ahead. */
  const replyStored = () => Promise.resolve(true);

  /** The messages published on a reply's channel from now on (each holds one or more lines). */
  async function listen(messageId: string): Promise<string[]> {
    const messages: string[] = [];
    const listener = new Redis(settings.redisUrl);
    listeners.push(listener);
    await listener.subscribe(runEventKeys(prefix, messageId).channel);
    listener.on('message', (_channel, message: string) => messages.push(message));
    return messages;
  }

  const linesOf = (messages: string[]) => messages.flatMap((message) => message.split('\n'));

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    for (const listener of listeners) listener.disconnect();
  });

  it('appends numbered events to the stream, with a TTL, and publishes the lines of a turn in one message', async () => {
    const keys = runEventKeys(prefix, 'm1');
    const published = await listen('m1');

    const { log, written: before } = await writer.claim('m1', replyStored);
    expect(before).toEqual([]);
    log.append({ type: 'message.started', message_id: 'm1', thread_id: 't1' });
    log.append({ type: 'text.delta', delta: 'hi' });
    log.release();
    await log.flush();

    const written = await writer.written('m1');
    expect(written).toEqual([
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
      { seq: 1, type: 'text.delta', delta: 'hi' },
    ]);
    expect(await redis.ttl(keys.stream)).toBeGreaterThan(100);
    expect(await redis.ttl(keys.owner)).toBeGreaterThan(100);
    log.append({ type: 'text.delta', delta: 'there' });
    log.release();
    await log.flush();

    const deadline = Date.now() + 2000;
    while (published.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const seqsByMessage = published.map((message) => message.split('\n').map((line) => JSON.parse(line).seq));
    expect(seqsByMessage).toEqual([[0, 1], [2]]);
  });

  it('splits a long burst into several calls, every event stored and published once, in order', async () => {
    const published = await listen('m-burst');

    const { log } = await writer.claim('m-burst', replyStored);
    for (let i = 0; i < 600; i++) log.append({ type: 'text.delta', delta: `w${i}` });
    log.release();
    await log.flush();

    expect((await writer.written('m-burst')).map((event) => event.seq)).toEqual([...Array(600).keys()]);
    const deadline = Date.now() + 2000;
    while (linesOf(published).length < 600 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    expect(linesOf(published).map((line) => JSON.parse(line).seq)).toEqual([...Array(600).keys()]);
    expect(published.length).toBeGreaterThan(1);
  });

  it('a new claim reads what the old owner wrote, and the old owner can append nothing more', async () => {
    const first = await writer.claim('m2', replyStored);
    first.log.append({ type: 'message.started', message_id: 'm2', thread_id: 't1' });
    first.log.append({ type: 'step.started', step: 1 });
    first.log.release();
    await first.log.flush();

    const second = await writer.claim('m2', replyStored);
    expect(second.written.map((event) => event.seq)).toEqual([0, 1]);
    expect(second.log.nextSeq).toBe(2);

    // The stale owner's pipelined appends are all refused, even one whose seq would fit after the new owner's.
    first.log.append({ type: 'text.delta', delta: 'stale' });
    second.log.append({ type: 'text.delta', delta: 'x' });
    first.log.append({ type: 'text.delta', delta: 'stale again' });
    first.log.release();
    await expect(first.log.flush()).rejects.toBeInstanceOf(RunSupersededError);
    expect(() => first.log.append({ type: 'text.delta', delta: 'after' })).toThrow(RunSupersededError);
    second.log.release();
    await second.log.flush();

    const written = await writer.written('m2');
    expect(written.map((event) => event.seq)).toEqual([0, 1, 2]);
    expect(written[2]).toEqual({ seq: 2, type: 'text.delta', delta: 'x' });
  });

  it("refuses a batch that does not follow the log's last line even from the owner, storing and publishing none of it", async () => {
    const keys = runEventKeys(prefix, 'm3');
    const published = await listen('m3');
    const { log } = await writer.claim('m3', replyStored);
    log.append({ type: 'message.started', message_id: 'm3', thread_id: 't1' });
    log.release();
    await log.flush();
    await redis.xadd(keys.stream, '0-2', 'e', '{"seq":1}');
    log.append({ type: 'step.started', step: 1 });
    log.append({ type: 'text.delta', delta: 'never' });
    log.release();
    await expect(log.flush()).rejects.toBeInstanceOf(RunEventLogLostError);

    const stored = await redis.xrange(keys.stream, '-', '+');
    expect(stored.map(([id]) => id)).toEqual(['0-1', '0-2']);
    expect(stored[1][1]).toEqual(['e', '{"seq":1}']);
    await new Promise((r) => setTimeout(r, 100));
    expect(linesOf(published).map((line) => JSON.parse(line).type)).toEqual(['message.started']);
  });

  it('refuses to append after lines its master lost in a failover, so no hole is left in the log', async () => {
    const keys = runEventKeys(prefix, 'm-lost-tail');
    const published = await listen('m-lost-tail');
    const { log } = await writer.claim('m-lost-tail', replyStored);
    for (const delta of ['a', 'b', 'c']) log.append({ type: 'text.delta', delta });
    log.release();
    await log.flush();
    // What a replica promoted before the last two XADDs reached it holds.
    await redis.xdel(keys.stream, '0-2', '0-3');
    log.append({ type: 'text.delta', delta: 'd' });
    log.release();
    await expect(log.flush()).rejects.toBeInstanceOf(RunEventLogLostError);

    expect((await redis.xrange(keys.stream, '-', '+')).map(([id]) => id)).toEqual(['0-1']);
    await new Promise((r) => setTimeout(r, 100));
    expect(linesOf(published).map((line) => JSON.parse(line).seq)).toEqual([0, 1, 2]);
    // The next claim resumes right after what survived: its run restores seq 1 on from PostgreSQL.
    expect((await writer.claim('m-lost-tail', replyStored)).log.nextSeq).toBe(1);
  });

  it('tells a lost claim (its token gone in a failover) from a takeover, at an append and at assertOwner', async () => {
    const keys = runEventKeys(prefix, 'm-lost-claim');
    const { log } = await writer.claim('m-lost-claim', replyStored);
    await redis.del(keys.owner);
    await expect(log.assertOwner()).rejects.toBeInstanceOf(RunEventLogLostError);

    const second = await writer.claim('m-lost-claim', replyStored);
    await redis.del(keys.owner);
    second.log.append({ type: 'text.delta', delta: 'x' });
    second.log.release();
    await expect(second.log.flush()).rejects.toBeInstanceOf(RunEventLogLostError);
    expect(await redis.exists(keys.stream)).toBe(0);
  });

  it('holds what is appended until it is released, then sends it in order', async () => {
    const published = await listen('m-held');
    const { log } = await writer.claim('m-held', replyStored);
    log.append({ type: 'message.started', message_id: 'm-held', thread_id: 't1' });
    log.append({ type: 'text.delta', delta: 'a' });
    log.append({ type: 'text.delta', delta: 'b' });
    await log.flush();
    await new Promise((r) => setTimeout(r, 100));
    expect(await writer.written('m-held')).toEqual([]);
    expect(published).toEqual([]);
    expect(log.holding).toBe(true);

    log.release(1);
    await log.flush();
    expect((await writer.written('m-held')).map((event) => event.seq)).toEqual([0, 1]);
    expect(log.takeHeld().map((event) => event.seq)).toEqual([2]);
    log.release();
    await log.flush();
    expect((await writer.written('m-held')).map((event) => event.seq)).toEqual([0, 1, 2]);
  });

  it('keeps what is appended after keepFromJournal from a journal, until the run releases everything', async () => {
    const { log } = await writer.claim('m-kept', replyStored);
    log.append({ type: 'text.delta', delta: 'a' });
    log.keepFromJournal();
    log.append({ type: 'approval.requested', step: 0, call_id: 'c1', name: 'clock', arguments: {} });
    // A journal stores what takeHeld gives it, then releases through the last of those seqs.
    expect(log.takeHeld().map((event) => event.seq)).toEqual([0]);
    log.release(0);
    await log.flush();
    expect((await writer.written('m-kept')).map((event) => event.seq)).toEqual([0]);
    expect(log.takeHeld()).toEqual([]);
    expect(log.holding).toBe(true);

    log.release();
    await log.flush();
    expect((await writer.written('m-kept')).map((event) => event.seq)).toEqual([0, 1]);
    // Released: what comes next is the journal's again.
    log.append({ type: 'text.delta', delta: 'b' });
    expect(log.takeHeld().map((event) => event.seq)).toEqual([2]);
  });

  it('joins a held delta to the one before it, never across another line, a journal taking it, or keepFromJournal', async () => {
    const published = await listen('m-join');
    const { log } = await writer.claim('m-join', replyStored);
    log.append({ type: 'step.started', step: 1 });
    expect(log.appendText('Hello').seq).toBe(1);
    expect(log.appendText(' there').seq).toBe(1);
    // A journal took seq 1 to store as it is: the next delta is a line of its own.
    expect(log.takeHeld().map((event) => event.seq)).toEqual([0, 1]);
    expect(log.appendText(',').seq).toBe(2);
    expect(log.appendText(' you').seq).toBe(2);
    log.append({ type: 'tool.call', step: 1, call_id: 'c1', name: 'clock', arguments: {} });
    expect(log.appendText(' and').seq).toBe(4);
    log.keepFromJournal();
    // Seq 4 may go out with a journal; a delta after keepFromJournal may not, so it cannot ride in seq 4.
    expect(log.appendText(' me').seq).toBe(5);
    expect(log.appendText('.').seq).toBe(5);
    log.release();
    expect(log.appendText(' Later').seq).toBe(6);
    log.append({ type: 'message.completed', message: { id: 'm-join' } });
    log.release();
    await log.flush();

    const stored = await writer.written('m-join');
    expect(stored.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const deltas = stored.flatMap((event) => (event.type === 'text.delta' ? [event.delta] : []));
    expect(deltas).toEqual(['Hello there', ', you', ' and', ' me.', ' Later']);
    const deadline = Date.now() + 2000;
    while (linesOf(published).length < 8 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    expect(linesOf(published).map((line) => JSON.parse(line))).toEqual(stored);
  });

  it("keeps a live reply's log an hour past its last line, a finished one's RUN_EVENTS_TTL_SECONDS", async () => {
    const keys = runEventKeys(prefix, 'm-ttl');
    const { log } = await writer.claim('m-ttl', replyStored);
    log.append({ type: 'text.delta', delta: 'a' });
    log.release();
    await log.flush();
    expect(await redis.ttl(keys.stream)).toBeGreaterThan(3500);
    expect(await redis.ttl(keys.owner)).toBeGreaterThan(3500);

    log.append({ type: 'message.completed', message: { id: 'm-ttl' } });
    log.release();
    await log.flush();
    for (const key of [keys.stream, keys.owner]) {
      expect(await redis.ttl(key)).toBeGreaterThan(100);
      expect(await redis.ttl(key)).toBeLessThanOrEqual(120);
    }
  });

  it('tells its owner from a run that lost the log', async () => {
    const first = await writer.claim('m-owner', replyStored);
    await expect(first.log.assertOwner()).resolves.toBeUndefined();
    await writer.claim('m-owner', replyStored);
    await expect(first.log.assertOwner()).rejects.toBeInstanceOf(RunSupersededError);
  });

  it('lets go of a log whose reply is no longer stored (erased), leaving no key behind', async () => {
    const keys = runEventKeys(prefix, 'm-erased');
    await expect(writer.claim('m-erased', () => Promise.resolve(false))).rejects.toBeInstanceOf(
      RunSupersededError,
    );
    expect(await redis.exists(keys.stream, keys.owner)).toBe(0);
  });

  it('withdraws the text of every delta, sent or held, keeping each seq, the TTL and what follows', async () => {
    const keys = runEventKeys(prefix, 'm-withdrawn');
    const { log } = await writer.claim('m-withdrawn', replyStored);
    log.append({ type: 'message.started', message_id: 'm-withdrawn', thread_id: 't1' });
    log.append({ type: 'text.delta', delta: 'the password ' });
    log.append({ type: 'text.delta', delta: 'is ' });
    log.release();
    await log.flush();
    // Held, not sent yet: it goes out empty.
    log.append({ type: 'text.delta', delta: 'sword' });
    const ttl = await redis.pttl(keys.stream);

    await log.withdrawText();
    log.append({ type: 'text.delta', delta: 'Blocked.' });
    log.release();
    await log.flush();

    expect(await writer.written('m-withdrawn')).toEqual([
      { seq: 0, type: 'message.started', message_id: 'm-withdrawn', thread_id: 't1' },
      { seq: 1, type: 'text.delta', delta: '' },
      { seq: 2, type: 'text.delta', delta: '' },
      { seq: 3, type: 'text.delta', delta: '' },
      { seq: 4, type: 'text.delta', delta: 'Blocked.' },
    ]);
    expect(await redis.pttl(keys.stream)).toBeGreaterThan(ttl - 5000);
  });

  it('refuses to withdraw the text of a log another run claimed', async () => {
    const first = await writer.claim('m-withdraw-late', replyStored);
    first.log.append({ type: 'text.delta', delta: 'kept' });
    first.log.release();
    await first.log.flush();
    await writer.claim('m-withdraw-late', replyStored);
    await expect(first.log.withdrawText()).rejects.toBeInstanceOf(RunSupersededError);
    expect(await writer.written('m-withdraw-late')).toEqual([{ seq: 0, type: 'text.delta', delta: 'kept' }]);
  });

  it('reads an unknown reply as an empty log', async () => {
    expect(await writer.written('nope')).toEqual([]);
  });
});
