import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  encodeEvent,
  EVENT_FIELD,
  RunEvent,
  RunEventReader,
  runEventKeys,
  SharedSubscriber,
  streamEntryId,
} from '@app/run-events';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What `RunEventRedis.open` connected: a command connection, the shared subscriber and a reader over both. */
export interface RunEventConnections {
  redis: Redis;
  subscriber: SharedSubscriber;
  reader: RunEventReader;
}

/**
 * Run events on the test Redis under a prefix of the spec's own (`parley_int_<name>_<random>`): the gateway's
 * reader side, and the lines a worker's writer would write. `close` deletes the prefix's keys and disconnects.
 */
export class RunEventRedis {
  readonly prefix: string;
  private connections?: RunEventConnections;

  constructor(name: string) {
    this.prefix = `parley_int_${name}_${randomBytes(4).toString('hex')}`;
  }

  open(): RunEventConnections {
    const redis = new Redis(REDIS_URL);
    const subscriber = new SharedSubscriber(new Redis(REDIS_URL));
    this.connections = { redis, subscriber, reader: new RunEventReader(redis, subscriber, this.prefix) };
    return this.connections;
  }

  async close(): Promise<void> {
    if (!this.connections) return;
    const { redis, subscriber } = this.connections;
    const keys = await redis.keys(`${this.prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await subscriber.close();
    redis.disconnect();
  }

  /** What the worker's writer does, in the same wire format: XADD with the seq's id, then PUBLISH (either alone). */
  async write(
    messageId: string,
    event: RunEvent,
    how: { log?: boolean; publish?: boolean } = {},
  ): Promise<void> {
    const { redis } = this.opened();
    const { stream, channel } = runEventKeys(this.prefix, messageId);
    const line = encodeEvent(event);
    if (how.log ?? true) await redis.xadd(stream, streamEntryId(event.seq), EVENT_FIELD, line);
    if (how.publish ?? true) await redis.publish(channel, line);
  }

  /** How many connections subscribe to the reply's channel (PUBSUB NUMSUB). */
  async numsub(messageId: string): Promise<number> {
    const { channel } = runEventKeys(this.prefix, messageId);
    const [, count] = (await this.opened().redis.pubsub('NUMSUB', channel)) as [string, number];
    return Number(count);
  }

  private opened(): RunEventConnections {
    if (!this.connections) throw new Error('RunEventRedis: open() first');
    return this.connections;
  }
}
