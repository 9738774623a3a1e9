import { backoffMs } from '@app/contracts';

/** Retries stop once this long has passed since the event (CONTRACTS §14). */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** No wait between two tries is longer than this. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

/**
 * When try `attempt + 1` is due after try `attempt` failed at `failedAt`: the first retry `baseMs` later,
 * each next one twice as late, capped at 1 h; null once that time falls past the 24 h window of the event.
 */
export function nextRetryAt(eventAt: Date, attempt: number, failedAt: Date, baseMs: number): Date | null {
  const delay = backoffMs(baseMs, attempt - 1, MAX_RETRY_DELAY_MS);
  const next = failedAt.getTime() + delay;
  return next > eventAt.getTime() + RETRY_WINDOW_MS ? null : new Date(next);
}
