import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadSettings } from '@app/config';
import { runEventKeys, RunEventWriter, RunSupersededError } from '@app/run-events';

describe('RunEventWriter', () => {
  const prefix = `writer_spec_${randomBytes(4).toString('hex')}`;
  const settings = loadSettings({
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    RUN_EVENTS_TTL_SECONDS: '120',
  });
  const redis = new Redis(settings.redisUrl);
  const subscriber = new Redis(settings.redisUrl);
  const writer = new RunEventWriter(settings, redis);

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    subscriber.disconnect();
  });

  it('appends numbered events to the stream, with a TTL, and publishes the same lines', async () => {
    const keys = runEventKeys(prefix, 'm1');
    const published: string[] = [];
    await subscriber.subscribe(keys.channel);
    subscriber.on('message', (_channel, line: string) => published.push(line));

    const { log, written: before } = await writer.claim('m1');
    expect(before).toEqual([]);
    log.append({ type: 'message.started', message_id: 'm1', thread_id: 't1' });
    log.append({ type: 'text.delta', delta: 'hi' });
    await log.flush();

    const written = await writer.written('m1');
    expect(written).toEqual([
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
      { seq: 1, type: 'text.delta', delta: 'hi' },
    ]);
    expect(await redis.ttl(keys.stream)).toBeGreaterThan(100);
    expect(await redis.ttl(keys.owner)).toBeGreaterThan(100);
    const deadline = Date.now() + 2000;
    while (published.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(published.map((line) => JSON.parse(line).seq)).toEqual([0, 1]);
  });

  it('a new claim reads what the old owner wrote, and the old owner can append nothing more', async () => {
    const first = await writer.claim('m2');
    first.log.append({ type: 'message.started', message_id: 'm2', thread_id: 't1' });
    first.log.append({ type: 'step.started', step: 1 });
    await first.log.flush();

    const second = await writer.claim('m2');
    expect(second.written.map((event) => event.seq)).toEqual([0, 1]);
    expect(second.log.nextSeq).toBe(2);

    // The stale owner's pipelined appends are all refused, even one whose seq would fit after the new owner's.
    first.log.append({ type: 'text.delta', delta: 'stale' });
    second.log.append({ type: 'text.delta', delta: 'x' });
    first.log.append({ type: 'text.delta', delta: 'stale again' });
    await expect(first.log.flush()).rejects.toBeInstanceOf(RunSupersededError);
    expect(() => first.log.append({ type: 'text.delta', delta: 'after' })).toThrow(RunSupersededError);
    await second.log.flush();

    const written = await writer.written('m2');
    expect(written.map((event) => event.seq)).toEqual([0, 1, 2]);
    expect(written[2]).toEqual({ seq: 2, type: 'text.delta', delta: 'x' });
  });

  it('refuses a seq already in the log even from the owner', async () => {
    const { log } = await writer.claim('m3');
    log.append({ type: 'message.started', message_id: 'm3', thread_id: 't1' });
    await log.flush();
    await redis.xadd(runEventKeys(prefix, 'm3').stream, '0-2', 'e', '{}');
    log.append({ type: 'step.started', step: 1 });
    await expect(log.flush()).rejects.toBeInstanceOf(RunSupersededError);
  });

  it('reads an unknown reply as an empty log', async () => {
    expect(await writer.written('nope')).toEqual([]);
  });
});
