/**
 * How every outbound caller (vendor models, data-source stores, webhooks) waits before trying again: the one
 * reading of a server's Retry-After and the one exponential backoff.
 */

/** Retry-After (RFC 9110 §10.2.3), delay-seconds or an HTTP date, as milliseconds from now; null when unreadable. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | null {
  if (!value?.trim()) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The wait before retry `retry` (0 for the first): `baseMs`, twice as long each next time, never over `maxMs`. */
export function backoffMs(baseMs: number, retry: number, maxMs: number): number {
  // The exponent is capped so that a long-failing target gets maxMs, not Infinity.
  return Math.min(baseMs * 2 ** Math.min(retry, 40), maxMs);
}
