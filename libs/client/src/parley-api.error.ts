/**
 * A response that was not a success: `status` is the HTTP status, `body` the parsed JSON (or the text),
 * `retryAfterSeconds` the service's `Retry-After` when it sent one (503, 429).
 */
export class ParleyApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly retryAfterSeconds?: number,
  ) {
    super(`Parley API answered ${status}: ${describe(body)}`);
    this.name = 'ParleyApiError';
  }
}

function describe(body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return detail;
  return JSON.stringify(detail ?? body);
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
