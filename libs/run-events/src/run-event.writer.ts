import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { REDIS } from '@app/redis';
import { decodeEvent, encodeEvent, EVENT_FIELD, streamEntryId } from './codec';
import { runEventKeys } from './keys';
import { RunEvent, UnnumberedRunEvent } from './run-event';

/**
 * XADD with the event's own id, then EXPIRE and PUBLISH, in one round trip. `redis.call` aborts the script on
 * the XADD error, so a refused event is neither kept nor published.
 */
const APPEND_SCRIPT = `
redis.call('XADD', KEYS[1], ARGV[1], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[3])
return 1`;

type AppendingRedis = Redis & {
  appendRunEvent(
    stream: string,
    entryId: string,
    field: string,
    line: string,
    ttl: number,
    channel: string,
  ): Promise<number>;
};

/**
 * Another writer already wrote this seq: the reply was resumed elsewhere (this worker stalled and lost its
 * job). The holder of the stale run must stop without writing anything more.
 */
export class RunSupersededError extends Error {
  constructor(messageId: string, seq: number) {
    super(`run of message ${messageId} is owned by another worker (seq ${seq} already written)`);
    this.name = 'RunSupersededError';
  }
}

/** One reply's events as one writer numbers them: seq continues after what is already in the log. */
export class RunEventLog {
  constructor(
    private readonly redis: AppendingRedis,
    private readonly keys: { stream: string; channel: string },
    private readonly ttlSeconds: number,
    readonly messageId: string,
    private next: number,
  ) {}

  get nextSeq(): number {
    return this.next;
  }

  /** Numbers the event, appends it to the replay stream and publishes it; throws RunSupersededError on a taken seq. */
  async append(event: UnnumberedRunEvent): Promise<RunEvent> {
    const seq = this.next;
    const numbered = { seq, ...event } as RunEvent;
    const line = encodeEvent(numbered);
    try {
      await this.redis.appendRunEvent(
        this.keys.stream,
        streamEntryId(seq),
        EVENT_FIELD,
        line,
        this.ttlSeconds,
        this.keys.channel,
      );
    } catch (error) {
      if (error instanceof Error && /equal or smaller than the target stream top item/.test(error.message)) {
        throw new RunSupersededError(this.messageId, seq);
      }
      throw error;
    }
    this.next = seq + 1;
    return numbered;
  }
}

/** The worker's side of run events: opens a reply's log for appending, and reads back what it already holds. */
@Injectable()
export class RunEventWriter {
  private readonly redis: AppendingRedis;

  constructor(
    private readonly settings: Settings,
    @Inject(REDIS) redis: Redis,
  ) {
    if (!('appendRunEvent' in redis)) {
      redis.defineCommand('appendRunEvent', { numberOfKeys: 1, lua: APPEND_SCRIPT });
    }
    this.redis = redis as AppendingRedis;
  }

  /** Every event already written for the reply, in seq order (empty when none, or expired). */
  async written(messageId: string): Promise<RunEvent[]> {
    const { stream } = runEventKeys(this.settings.redisPrefix, messageId);
    const entries = await this.redis.xrange(stream, '-', '+');
    return entries.map(([, fields]) => decodeEvent(fields[fields.indexOf(EVENT_FIELD) + 1]));
  }

  /** A log whose next event gets `nextSeq` (0 for a new reply, last seq + 1 for a resumed one). */
  open(messageId: string, nextSeq: number): RunEventLog {
    return new RunEventLog(
      this.redis,
      runEventKeys(this.settings.redisPrefix, messageId),
      this.settings.runEventsTtlSeconds,
      messageId,
      nextSeq,
    );
  }
}
