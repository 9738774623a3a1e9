import { setTimeout as sleep } from 'node:timers/promises';
import { backoffMs, retryAfterMs } from '@app/contracts';

/** How a store call is bounded (from Settings). */
export interface StoreHttpOptions {
  timeoutMs: number;
  maxRetries: number;
  maxDelayMs: number;
  /** First backoff wait; doubles on each attempt. */
  baseDelayMs?: number;
}

/** A store answered with an error status (after retries, for 429 and 5xx). */
export class StoreHttpError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    readonly body: string,
  ) {
    super(`${new URL(url).pathname} answered ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
  }
}

/** The store could not be reached (network error or timeout, after retries). */
export class StoreUnavailableError extends Error {}

const retryable = (status: number) => status === 429 || status >= 500;

/**
 * fetch with a timeout per attempt and retries on 429, 5xx and network errors: the wait is the store's
 * Retry-After when it sends one, else exponential backoff with jitter, never more than `maxDelayMs`.
 * Answers the last response (possibly an error status the caller handles); throws StoreUnavailableError
 * when no response came.
 */
export async function storeFetch(
  url: string,
  init: RequestInit,
  options: StoreHttpOptions,
): Promise<Response> {
  const base = options.baseDelayMs ?? 500;
  // Jitter spreads the retries of many syncs that failed together.
  const jittered = (attempt: number) =>
    backoffMs(base, attempt, options.maxDelayMs) * (0.5 + Math.random() / 2);
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal: AbortSignal.timeout(options.timeoutMs) });
    } catch (error) {
      if (attempt >= options.maxRetries) {
        throw new StoreUnavailableError(`${new URL(url).host} unreachable: ${(error as Error).message}`);
      }
      await sleep(jittered(attempt));
      continue;
    }
    if (!retryable(response.status) || attempt >= options.maxRetries) return response;
    const asked = retryAfterMs(response.headers.get('retry-after'));
    await response.body?.cancel();
    await sleep(Math.min(options.maxDelayMs, asked ?? jittered(attempt)));
  }
}

/** A response's JSON, or StoreHttpError for an error status. */
export async function jsonOf<T>(response: Response): Promise<T> {
  if (!response.ok) throw new StoreHttpError(response.status, response.url, await response.text());
  return (await response.json()) as T;
}

/** The body read up to `maxBytes`; null as soon as it is longer (the rest is not downloaded). */
export async function readBounded(response: Response, maxBytes: number): Promise<Buffer | null> {
  if (!response.ok) throw new StoreHttpError(response.status, response.url, await response.text());
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    return null;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}
