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

    const log = writer.open('m1', 0);
    await log.append({ type: 'message.started', message_id: 'm1', thread_id: 't1' });
    await log.append({ type: 'text.delta', delta: 'hi' });

    const written = await writer.written('m1');
    expect(written).toEqual([
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
      { seq: 1, type: 'text.delta', delta: 'hi' },
    ]);
    expect(await redis.ttl(keys.stream)).toBeGreaterThan(100);
    const deadline = Date.now() + 2000;
    while (published.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(published.map((line) => JSON.parse(line).seq)).toEqual([0, 1]);
  });

  it('refuses a seq another writer already wrote, and publishes nothing for it', async () => {
    const first = writer.open('m2', 0);
    await first.append({ type: 'message.started', message_id: 'm2', thread_id: 't1' });
    await first.append({ type: 'step.started', step: 1 });

    const stale = writer.open('m2', 1);
    await expect(stale.append({ type: 'step.started', step: 1 })).rejects.toBeInstanceOf(RunSupersededError);
    expect((await writer.written('m2')).map((event) => event.seq)).toEqual([0, 1]);

    const resumed = writer.open('m2', 2);
    await resumed.append({ type: 'text.delta', delta: 'x' });
    expect((await writer.written('m2')).map((event) => event.seq)).toEqual([0, 1, 2]);
  });

  it('reads an unknown reply as an empty log', async () => {
    expect(await writer.written('nope')).toEqual([]);
  });
});
