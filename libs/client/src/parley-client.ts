import { ParleyApiError } from './parley-api.error';
import {
  ListThreads,
  Message,
  PostMessage,
  ReplyEvent,
  StartChat,
  Thread,
  ThreadSummary,
  UpdateThread,
} from './types';

export interface ParleyClientOptions {
  /** Address of the service, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** The API secret (`sk-svc-…`), sent as `x-service-token`. */
  token: string;
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
}

/**
 * The seven chat endpoints (API-SPEC 4.1). Every call throws ParleyApiError when the service answers
 * anything but success.
 */
export class ParleyClient {
  private readonly baseUrl: string;

  constructor(private readonly options: ParleyClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** POST /chat: the new thread with the user's message and the pending reply (stream `messages[1].id`). */
  startThread(body: StartChat): Promise<Thread> {
    return this.json('POST', '/chat', { body });
  }

  /** POST /chat/{thread_id}: the pending reply to the follow-up. */
  postMessage(threadId: string, body: PostMessage): Promise<Message> {
    return this.json('POST', `/chat/${encodeURIComponent(threadId)}`, { body });
  }

  /** GET /chat: the user's threads, newest first. */
  listThreads(query: ListThreads): Promise<ThreadSummary[]> {
    const params = new URLSearchParams({ user_id: query.user_id });
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    for (const agentId of query.agent_ids ?? []) params.append('agent_ids', agentId);
    return this.json('GET', `/chat?${params}`);
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
   */
  async *streamReply(messageId: string, options: StreamReplyOptions = {}): AsyncGenerator<ReplyEvent> {
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
          if (!event) continue;
          yield event;
          if (event.type === 'message.completed') return;
        }
        if (done) {
          const event = parseLine(buffer.trim());
          if (event) yield event;
          return;
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }

  private async json<T>(method: string, path: string, init: { body?: unknown } = {}): Promise<T> {
    const response = await this.request(method, path, init);
    return (await response.json()) as T;
  }

  private async request(
    method: string,
    path: string,
    init: { body?: unknown; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        'x-service-token': this.options.token,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal: init.signal,
    });
    if (!response.ok) throw new ParleyApiError(response.status, await readBody(response));
    return response;
  }
}

const userQuery = (options: AsUser) =>
  options.userId !== undefined ? `?${new URLSearchParams({ user_id: options.userId })}` : '';

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
