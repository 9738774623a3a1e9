import { prefixedKey } from '@app/redis';

/**
 * Redis names of one reply's events: a stream (the replay log, with a TTL), a pub/sub channel (live delivery)
 * and the token of the run that owns the log (the only one allowed to append). Keyed by message id, never by
 * thread, so each reply resumes on its own. The message id is a hash tag: on Redis Cluster the stream and its
 * owner token, which one script touches together, live in the same slot.
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
