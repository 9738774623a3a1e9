import { ErrorBody, ValidationIssue } from './types';

/**
 * A response that was not a success: `status` is the HTTP status, `body` the error body of the OpenAPI document
 * (`{detail: string}`, or for a 422 `{detail: ValidationIssue[]}`; the text, or null, when a proxy answered
 * something else), `retryAfterSeconds` the service's `Retry-After` when it sent one (503, 429).
 */
export class ParleyApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | string | null,
    readonly retryAfterSeconds?: number,
  ) {
    super(`Parley API answered ${status}: ${describe(body)}`);
    this.name = 'ParleyApiError';
  }

  /** The failing fields of a 422 (`loc`, `msg`, `type`, `input`, `ctx`); empty for any other answer. */
  get issues(): ValidationIssue[] {
    const detail = typeof this.body === 'object' ? this.body?.detail : undefined;
    return Array.isArray(detail) ? detail : [];
  }
}

function describe(body: ErrorBody | string | null): string {
  if (typeof body === 'string' || body === null) return JSON.stringify(body);
  return typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail);
}

/**
 * The service could not be reached at all (refused, reset, unknown host, TLS): no HTTP answer. `baseUrl` is
 * the address the client was given, `cause` the platform's error, `attempts` the tries made.
 */
export class ParleyConnectionError extends Error {
  constructor(
    readonly baseUrl: string,
    override readonly cause: unknown,
    readonly attempts = 1,
  ) {
    super(
      `Parley service unreachable at ${baseUrl}: ${reasonOf(cause)}` +
        (attempts > 1 ? ` (${attempts} attempts)` : ''),
    );
    this.name = 'ParleyConnectionError';
  }
}

/** undici reports "fetch failed" and keeps the reason (ECONNREFUSED …) in its cause. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const inner = cause instanceof AggregateError ? cause.errors[0] : cause;
  const message = (inner as { message?: unknown } | null)?.message;
  if (typeof message === 'string' && message) return message;
  return String((error as { message?: unknown } | null)?.message ?? error);
}

/**
 * A reply stream was cut and could not be reopened: `lastSeq` is the last line the iterator yielded (-1:
 * none), `attempts` the reopenings tried in a row without a new line, `cause` the last failure (null when the
 * service answered but ended the stream early each time). Resume later with `streamReply(id, { after })`.
 */
export class StreamInterruptedError extends Error {
  constructor(
    readonly messageId: string,
    readonly lastSeq: number,
    readonly attempts: number,
    override readonly cause: unknown,
  ) {
    super(`stream of message ${messageId} was cut after seq ${lastSeq} and could not be resumed`);
    this.name = 'StreamInterruptedError';
  }
}
