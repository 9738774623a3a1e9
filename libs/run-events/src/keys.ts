import { prefixedKey } from '@app/redis';

/**
 * Redis names of one reply's events: a stream (the replay log, with a TTL), a pub/sub channel (live delivery)
 * and the token of the run that owns the log (the only one allowed to append). Keyed by message id, never by
 * thread, so each reply resumes on its own.
 */
export function runEventKeys(
  redisPrefix: string,
  messageId: string,
): { stream: string; channel: string; owner: string } {
  return {
    stream: prefixedKey(redisPrefix, 'run-events', messageId),
    channel: prefixedKey(redisPrefix, 'run-events', messageId, 'live'),
    owner: prefixedKey(redisPrefix, 'run-events', messageId, 'owner'),
  };
}
