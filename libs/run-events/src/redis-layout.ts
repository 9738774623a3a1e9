import { prefixedKey } from '@app/redis';
import { RunEvent } from './run-event';

/**
 * Where and how one reply's events sit in Redis, as its writer and its readers both address them.
 *
 * The keys: a stream (the replay log, with a TTL), a pub/sub channel (live delivery) and the token of the run
 * that owns the log (the only one allowed to append). Keyed by message id, never by thread, so each reply
 * resumes on its own. The message id is a hash tag: on Redis Cluster the stream and its owner token, which one
 * script touches together, live in the same slot.
 */
export function runEventKeys(
  redisPrefix: string,
  messageId: string,
): { stream: string; channel: string; owner: string } {
  const tagged = `{${messageId}}`;
  return {
    stream: prefixedKey(redisPrefix, 'run-events', tagged),
    channel: prefixedKey(redisPrefix, 'run-events', tagged, 'live'),
    owner: prefixedKey(redisPrefix, 'run-events', tagged, 'owner'),
  };
}

/**
 * The entries. In the replay stream, an event's entry id is `0-<seq + 1>`: XADD refuses an id not above the
 * last one, so a second writer of the same reply (a stalled worker that came back) cannot write a duplicate or
 * out-of-order seq. The entry has one field, `e`, holding the JSON line; the pub/sub channel carries the same
 * JSON line.
 */
export const EVENT_FIELD = 'e';

export const streamEntryId = (seq: number): string => `0-${seq + 1}`;

export const seqOfEntryId = (id: string): number => Number(id.slice(id.indexOf('-') + 1)) - 1;

export const encodeEvent = (event: RunEvent): string => JSON.stringify(event);

export const decodeEvent = (line: string): RunEvent => JSON.parse(line) as RunEvent;
