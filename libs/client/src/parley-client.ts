import { ParleyApiError, ParleyConnectionError, StreamInterruptedError } from './parley-api.error';
import {
  ErrorBody,
  ListThreads,
  Message,
  PostMessage,
  ReplyEvent,
  StartChat,
  Thread,
  ThreadPage,
  ThreadSummary,
  UpdateThread,
} from './types';

export interface ParleyClientOptions {
  /** Address of the service, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** The API secret (`sk-svc-…`), sent as `x-service-token`. */
  token: string;
  /** Retries of a write the service could not take for now (503, 429, a broken connection); default 3. */
  maxRetries?: number;
  /** Wait before the first retry when the service names none (`Retry-After`), doubled each time; default 500 ms. */
  retryBackoffMs?: number;
}

/**
 * A write (`startThread`, `postMessage`) carries an `Idempotency-Key`: the same one on every retry, so a retry
 * after a lost answer gets the first answer again and nothing is stored twice. One is made per call unless given.
 */
export interface WriteOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** The end user a thread call is made for: when given, the thread must be theirs (else 404). */
export interface AsUser {
  userId?: string;
}

export interface StreamReplyOptions extends AsUser {
  /** Resume: only lines with a `seq` above this one. */
  after?: number;
  /** Stops reading (the iterator then throws the abort error). */
  signal?: AbortSignal;
  /** Attempts in a row to reopen a cut stream that bring no new line before giving up (default 5). */
  maxResumes?: number;
  /** Wait before the first reopening, doubled on each attempt in a row, at most 5 s (default 200 ms). */
  resumeBackoffMs?: number;
}

const DEFAULT_MAX_RESUMES = 5;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_RETRY_BACKOFF_MS = 500;
/** The 409 of a retry that arrives while the first request with its key is still being processed. */
export const KEY_IN_FLIGHT_DETAIL = 'A request with this Idempotency-Key is still being processed';
const DEFAULT_RESUME_BACKOFF_MS = 200;
const MAX_RESUME_BACKOFF_MS = 5000;

/**
 * The seven chat endpoints. Every call throws ParleyApiError when the service answers
 * anything but success.
 */
export class ParleyClient {
  private readonly baseUrl: string;

  constructor(private readonly options: ParleyClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** POST /chat: the new thread with the user's message and the pending reply (stream `messages[1].id`). */
  startThread(body: StartChat, options: WriteOptions = {}): Promise<Thread> {
    return this.write('/chat', body, options);
  }

  /** POST /chat/{thread_id}: the pending reply to the follow-up. */
  postMessage(threadId: string, body: PostMessage, options: WriteOptions = {}): Promise<Message> {
    return this.write(`/chat/${encodeURIComponent(threadId)}`, body, options);
  }

  /** GET /chat: one page of the user's threads, newest first. */
  async listThreads(query: ListThreads): Promise<ThreadSummary[]> {
    return (await this.listThreadPage(query)).threads;
  }

  /** GET /chat with the cursor of the next page (the service's `x-next-cursor`). */
  async listThreadPage(query: ListThreads): Promise<ThreadPage> {
    const params = new URLSearchParams({ user_id: query.userId });
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    for (const agentId of query.agentIds ?? []) params.append('agent_ids', agentId);
    if (query.before !== undefined) params.set('before', query.before);
    const response = await this.request('GET', `/chat?${params}`);
    const threads = (await response.json()) as ThreadSummary[];
    const nextCursor = response.headers.get('x-next-cursor');
    return nextCursor ? { threads, nextCursor } : { threads };
  }

  /** Every thread of the user, newest first, page after page. */
  async *allThreads(query: Omit<ListThreads, 'before'>): AsyncGenerator<ThreadSummary> {
    let before: string | undefined;
    do {
      const page = await this.listThreadPage({ ...query, before });
      yield* page.threads;
      before = page.nextCursor;
    } while (before);
  }

  /** GET /chat/{thread_id}: the thread with every message, oldest first. */
  getThread(threadId: string, options: AsUser = {}): Promise<Thread> {
    return this.json('GET', `/chat/${encodeURIComponent(threadId)}${userQuery(options)}`);
  }

  /** PUT /chat/{thread_id}: rename or (un)star; answers the summary. */
  updateThread(threadId: string, body: UpdateThread, options: AsUser = {}): Promise<ThreadSummary> {
    return this.json('PUT', `/chat/${encodeURIComponent(threadId)}${userQuery(options)}`, { body });
  }

  /** DELETE /chat/{thread_id}: archives the thread and stops its replies; it is gone for every call after. */
  async archiveThread(threadId: string, options: AsUser = {}): Promise<void> {
    await this.request('DELETE', `/chat/${encodeURIComponent(threadId)}${userQuery(options)}`);
  }

  /**
   * GET /chat/messages/{message_id}/stream: the reply's lines as they come, parsed one line at a time,
   * ending with `message.completed`. Opened late or again it replays from the start (or after `after`).
   * Heartbeat lines only keep the connection open and are not yielded.
   *
   * A stream cut before `message.completed` (a gateway that stops or dies, a network break, a 5xx) is
   * opened again with `after` = the last seq yielded, so every line comes once and in order; after
   * `maxResumes` attempts in a row that bring nothing new it throws StreamInterruptedError.
   */
  async *streamReply(messageId: string, options: StreamReplyOptions = {}): AsyncGenerator<ReplyEvent> {
    const maxResumes = options.maxResumes ?? DEFAULT_MAX_RESUMES;
    const backoff = options.resumeBackoffMs ?? DEFAULT_RESUME_BACKOFF_MS;
    let last = options.after;
    let failures = 0;
    for (;;) {
      let cause: unknown = null;
      let progressed = false;
      try {
        for await (const event of this.streamOnce(messageId, { ...options, after: last })) {
          // The last line of an ended reply comes even when `after` is past it (its log was rebuilt shorter).
          if (event.type !== 'message.completed' && last !== undefined && event.seq <= last) continue;
          yield event;
          if (event.type === 'message.completed') return;
          last = event.seq;
          progressed = true;
        }
      } catch (error) {
        if (options.signal?.aborted || !resumable(error)) throw error;
        cause = error;
      }
      failures = progressed ? 1 : failures + 1;
      if (failures > maxResumes) throw new StreamInterruptedError(messageId, last ?? -1, failures - 1, cause);
      await delay(Math.min(backoff * 2 ** (failures - 1), MAX_RESUME_BACKOFF_MS), options.signal);
    }
  }

  /** One request of the stream: its numbered lines until the response ends, however it ends. */
  private async *streamOnce(messageId: string, options: StreamReplyOptions): AsyncGenerator<ReplyEvent> {
    const params = new URLSearchParams();
    if (options.after !== undefined) params.set('after', String(options.after));
    if (options.userId !== undefined) params.set('user_id', options.userId);
    const query = params.size > 0 ? `?${params}` : '';
    const response = await this.request(
      'GET',
      `/chat/messages/${encodeURIComponent(messageId)}/stream${query}`,
      { signal: options.signal },
    );
    if (!response.body) return;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          const event = parseLine(line);
          if (event) yield event;
        }
        // A line without its newline is a line cut short: it is asked for again.
        if (done) return;
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }

  /** A POST that is safe to repeat: one Idempotency-Key for every attempt, bounded retries with backoff. */
  private async write<T>(path: string, body: unknown, options: WriteOptions): Promise<T> {
    const headers = { 'idempotency-key': options.idempotencyKey ?? crypto.randomUUID() };
    const maxRetries = this.options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const backoff = this.options.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.json<T>('POST', path, { body, headers, signal: options.signal });
      } catch (error) {
        if (options.signal?.aborted || attempt >= maxRetries || !retryableWrite(error)) {
          throw error instanceof ParleyConnectionError
            ? new ParleyConnectionError(this.baseUrl, error.cause, attempt + 1)
            : error;
        }
        const named = error instanceof ParleyApiError ? error.retryAfterSeconds : undefined;
        const wait = named !== undefined ? named * 1000 : backoff * 2 ** attempt;
        await delay(Math.min(wait, MAX_RESUME_BACKOFF_MS), options.signal);
      }
    }
  }

  private async json<T>(
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<T> {
    const response = await this.request(method, path, init);
    return (await response.json()) as T;
  }

  private async request(
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          ...init.headers,
          'x-service-token': this.options.token,
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
        signal: init.signal,
      });
    } catch (error) {
      // No answer at all: name the address, which a bare "fetch failed" does not.
      if (init.signal?.aborted || !connectionFailure(error)) throw error;
      throw new ParleyConnectionError(this.baseUrl, error);
    }
    if (!response.ok) {
      const retryAfter = Number(response.headers.get('retry-after') ?? NaN);
      throw new ParleyApiError(
        response.status,
        (await readBody(response)) as ErrorBody | string | null,
        Number.isFinite(retryAfter) ? retryAfter : undefined,
      );
    }
    return response;
  }
}

const userQuery = (options: AsUser) =>
  options.userId !== undefined ? `?${new URLSearchParams({ user_id: options.userId })}` : '';

/**
 * Errors after which a write is sent again with the same key: the service was unavailable or busy, the
 * connection broke (the answer may have been lost: the key makes the retry return it), or the first attempt
 * is still being processed. Never a 4xx that judges the request itself.
 */
function retryableWrite(error: unknown): boolean {
  if (error instanceof ParleyApiError) {
    if (error.status === 409)
      return (error.body as { detail?: unknown } | null)?.detail === KEY_IN_FLIGHT_DETAIL;
    return error.status === 429 || error.status === 502 || error.status === 503 || error.status === 504;
  }
  return resumable(error);
}

/** Errors a stream is reopened after: the connection broke, or the service (or a proxy) failed for now. */
function resumable(error: unknown): boolean {
  if (error instanceof ParleyApiError) return error.status >= 500 || error.status === 429;
  if (error instanceof ParleyConnectionError) return true;
  return connectionFailure(error);
}

function connectionFailure(error: unknown): boolean {
  // fetch and the body reader fail with TypeError (or an undici SocketError) when the connection breaks; by
  // name, as the error may come from another realm (a test sandbox).
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'TypeError' || name === 'SocketError';
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A numbered line, or null for a blank or heartbeat line (which has no `seq`). */
function parseLine(line: string): ReplyEvent | null {
  if (!line) return null;
  const parsed = JSON.parse(line) as Partial<ReplyEvent>;
  return typeof parsed.seq === 'number' ? (parsed as ReplyEvent) : null;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}
