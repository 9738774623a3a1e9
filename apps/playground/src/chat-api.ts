/** The calls the playground makes, on the gateway that served it. */

export type Line = { type: string } & Record<string, unknown>;

export interface Message {
  id: string;
  role: string;
  content: string;
  status?: string;
  error_code?: string | null;
  questions: { prompt: string; options?: string[] }[] | null;
  events: Line[] | null;
  files: { name: string }[];
}

export interface ThreadSummary {
  id: string;
  name: string;
  starred: boolean;
}

export interface Thread extends ThreadSummary {
  messages: Message[];
}

export class ChatApi {
  constructor(private readonly key: string) {}

  agents(): Promise<{ id: string; name: string }[]> {
    return this.call<{ agents: { id: string; name: string }[] }>('GET', '/agents').then(
      (body) => body.agents,
    );
  }

  threads(userId: string): Promise<ThreadSummary[]> {
    return this.call('GET', `/chat?limit=50&user_id=${encodeURIComponent(userId)}`);
  }

  thread(id: string, userId: string): Promise<Thread> {
    return this.call('GET', `/chat/${id}?user_id=${encodeURIComponent(userId)}`);
  }

  startThread(agentId: string, userId: string, message: object): Promise<Thread> {
    return this.call('POST', '/chat', { message, options: { agent_id: agentId, user_id: userId } });
  }

  postMessage(threadId: string, userId: string, message: object): Promise<Message> {
    return this.call('POST', `/chat/${threadId}`, { message, options: { user_id: userId } });
  }

  updateThread(id: string, userId: string, change: { name?: string; starred?: boolean }): Promise<unknown> {
    return this.call('PUT', `/chat/${id}?user_id=${encodeURIComponent(userId)}`, change);
  }

  archiveThread(id: string, userId: string): Promise<unknown> {
    return this.call('DELETE', `/chat/${id}?user_id=${encodeURIComponent(userId)}`);
  }

  /**
   * The two-step upload (CONTRACTS §8): a permission from the gateway, then the file to the storage host,
   * without the key. The storage host is another origin that sends no CORS headers, so the browser sends the
   * form but cannot read the answer; a file that did not arrive is refused (422) when the message names it.
   */
  async upload(file: File, userId: string): Promise<string> {
    const query = new URLSearchParams({
      filename: file.name,
      mimetype: file.type || 'application/octet-stream',
      user_id: userId,
    });
    const permission = await this.call<{ url: string; fields: Record<string, string> }>(
      'GET',
      `/chat/files/upload?${query}`,
    );
    const form = new FormData();
    for (const [name, value] of Object.entries(permission.fields)) form.append(name, value);
    form.append('file', file);
    await fetch(permission.url, { method: 'POST', body: form, mode: 'no-cors' });
    return permission.fields['x-amz-meta-file-id'];
  }

  /** The reply's JSONL stream, a line at a time as it arrives. */
  async *stream(messageId: string): AsyncGenerator<Line> {
    const response = await fetch(`/chat/messages/${messageId}/stream`, {
      headers: { 'x-service-token': this.key },
    });
    if (!response.ok || !response.body) throw new Error(`stream: HTTP ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const text = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (text) {
          const line = JSON.parse(text) as Line;
          if (line.type !== 'heartbeat') yield line;
        }
      }
    }
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(path, {
      method,
      headers: {
        'x-service-token': this.key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!response.ok) {
      const detail = (parsed as { detail?: unknown } | undefined)?.detail;
      throw new Error(
        `${method} ${path.split('?')[0]}: ${response.status} ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`,
      );
    }
    return parsed as T;
  }
}
