import { APICallError } from '@ai-sdk/provider';
import { retryAfterMs as retryAfterHeaderMs } from '@app/contracts';

/** Why a vendor model call failed, in words the reply's content can carry; never holds an API key. */
export class VendorModelError extends Error {
  constructor(
    message: string,
    /** Another attempt may succeed (429, 5xx, network, timeout, broken stream). */
    readonly retryable: boolean,
    /** How long the vendor asked us to wait (retry-after), in ms. */
    readonly retryAfterMs: number | null = null,
    /**
     * The vendor was rate limiting, failing (5xx), silent or unreachable: another model may answer (CONTRACTS
     * §24), even once this one's retries are spent.
     */
    readonly transient: boolean = retryable,
  ) {
    super(message);
  }
}

/** The vendor sent nothing for too long: the call is abandoned (and retried while nothing was streamed). */
export class VendorTimeoutError extends Error {}

const STATUS_TEXT: Record<number, string> = {
  400: 'rejected the request',
  401: 'refused the API key',
  403: 'denied access',
  404: 'does not know this model or endpoint',
  408: 'timed out',
  409: 'reported a conflict',
  413: 'found the request too large',
  422: 'rejected the request',
  429: 'is rate limiting us',
  500: 'had an internal error',
  502: 'had a gateway error',
  503: 'is unavailable',
  504: 'timed out at its gateway',
  529: 'is overloaded',
};

/**
 * Turns anything a provider threw (or put in an `error` stream part) into a VendorModelError: a readable message
 * prefixed by the model (`openai:gpt-4o: the vendor refused the API key (401): ...`), the vendor's own words
 * kept, secrets redacted.
 */
export function toVendorError(
  error: unknown,
  model: string,
  secrets: (string | undefined)[],
): VendorModelError {
  const redact = (text: string) =>
    secrets.reduce<string>((out, secret) => (secret ? out.split(secret).join('***') : out), text).trim();
  if (error instanceof VendorModelError) return error;
  if (error instanceof VendorTimeoutError) return new VendorModelError(`${model}: ${error.message}`, true);
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const detail = redact(vendorMessage(error));
    if (status === undefined) {
      return new VendorModelError(`${model}: cannot reach the vendor: ${detail}`, error.isRetryable);
    }
    if (status < 300) {
      // The SDK's wrapping of a stream that failed after a 200 (`Failed to process successful response`).
      const cause = messagesOf(error.cause).join(': ') || detail;
      return new VendorModelError(`${model}: the vendor's stream broke off: ${redact(cause)}`, true);
    }
    const what = STATUS_TEXT[status] ?? (status >= 500 ? 'had a server error' : 'rejected the request');
    return new VendorModelError(
      `${model}: the vendor ${what} (${status})${detail ? `: ${detail}` : ''}`,
      error.isRetryable,
      retryAfterMs(error.responseHeaders),
    );
  }
  const streamError = vendorStreamError(error);
  if (streamError) return new VendorModelError(`${model}: the vendor reported ${redact(streamError)}`, true);
  const message = messagesOf(error).join(': ') || String(error);
  // Whatever else breaks a stream (a reset socket, `terminated`, a parse failure of a cut chunk) is transient.
  return new VendorModelError(`${model}: the vendor's stream broke off: ${redact(message)}`, true);
}

/** The messages of an error and its causes (`terminated: other side closed`), duck-typed across realms. */
function messagesOf(error: unknown, depth = 3): string[] {
  const message = (error as { message?: unknown } | null)?.message;
  if (depth === 0 || typeof message !== 'string') return [];
  return [message, ...messagesOf((error as { cause?: unknown }).cause, depth - 1)];
}

/** The vendor's message from an error body ({"error": {"message"}} for both OpenAI and Anthropic), else the SDK's. */
function vendorMessage(error: APICallError): string {
  const data = error.data as { error?: { message?: unknown } } | undefined;
  if (typeof data?.error?.message === 'string') return data.error.message;
  return error.message;
}

/** An error event inside a stream (Anthropic `{"type":"error","error":{"type","message"}}`, OpenAI `{"error":{...}}`). */
function vendorStreamError(error: unknown): string | null {
  if (error === null || typeof error !== 'object' || error instanceof Error) return null;
  const inner = (error as { error?: unknown }).error ?? error;
  if (inner === null || typeof inner !== 'object') return null;
  const { type, message } = inner as { type?: unknown; message?: unknown };
  if (typeof message !== 'string' && typeof type !== 'string') return null;
  return [type, message].filter((part) => typeof part === 'string').join(': ');
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = Number.parseFloat(headers['retry-after-ms'] ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  return retryAfterHeaderMs(headers['retry-after'], now);
}
