import { prefixedKey } from '@app/redis';

/**
 * Redis names of one reply's events: a stream (the replay log, with a TTL) and a pub/sub channel
 * (live delivery). Keyed by message id, never by thread, so each reply resumes on its own.
 */
export function runEventKeys(redisPrefix: string, messageId: string): { stream: string; channel: string } {
  return {
    stream: prefixedKey(redisPrefix, 'run-events', messageId),
    channel: prefixedKey(redisPrefix, 'run-events', messageId, 'live'),
  };
}
