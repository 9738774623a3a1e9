/**
 * The calls the playground makes, on the gateway that served it. The service key only lists agents and mints
 * end-user tokens; everything an end user does goes with that user's token, as a customer's front end would.
 */
import { DefaultChatTransport, UIMessage } from 'ai';

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

export interface Agent {
  id: string;
  name: string;
  memory_namespace: string | null;
}

/** How many memory namespaces one end-user token may be granted. */
const MAX_TOKEN_NAMESPACES = 5;

/** What only the key may do: list the organization's agents and mint tokens for its end users. */
export class KeyApi {
  constructor(private readonly key: string) {}

  agents(): Promise<Agent[]> {
    return call<{ agents: Agent[] }>(this.key, 'GET', '/agents').then((body) => body.agents);
  }

  /**
   * A token for one end user, as an integrator's server route would mint it for its page, granted the memory
   * namespaces of these agents (a token may use at most 5), so their chats are not refused for their namespace.
   */
  async endUser(userId: string, agents: readonly Agent[]): Promise<EndUserApi> {
    const namespaces = [...new Set(agents.flatMap((agent) => agent.memory_namespace ?? []))];
    const minted = await call<{ token: string }>(this.key, 'POST', '/end-user-tokens', {
      user_id: userId,
      memory_namespaces: namespaces.slice(0, MAX_TOKEN_NAMESPACES),
    });
    return new EndUserApi(minted.token);
  }
}

/** One end user's calls, with their end-user token: threads, uploads, and the AI SDK chat protocol. */
export class EndUserApi {
  constructor(private readonly token: string) {}

  /** The AI SDK's own transport, as `useChat` would use it; `agent_id` rides in its body. */
  transport(agentId: () => string): DefaultChatTransport<UIMessage> {
    return new DefaultChatTransport<UIMessage>({
      api: '/ai-sdk/chat',
      headers: { authorization: `Bearer ${this.token}` },
      body: () => ({ agent_id: agentId() }),
    });
  }

  stop(chatId: string): Promise<unknown> {
    return call(this.token, 'POST', `/ai-sdk/chat/${encodeURIComponent(chatId)}/stop`);
  }

  /** A person's decision on a call that waits (CONTRACTS §19); the reply then goes on. */
  decide(replyId: string, callId: string, decision: 'approve' | 'deny'): Promise<Message> {
    return call(this.token, 'POST', `/chat/messages/${replyId}/approvals`, { call_id: callId, decision });
  }

  /**
   * A reply's own stream (CONTRACTS §5): every line from its start, then live to its end. It needs only the
   * reply's id, so it follows a reply of a thread opened from the list as well as one sent from this page.
   */
  async *replyLines(replyId: string): AsyncGenerator<Line> {
    const response = await fetch(`/chat/messages/${replyId}/stream`, {
      headers: { authorization: `Bearer ${this.token}` },
    });
    if (!response.ok || !response.body) throw new Error(`GET reply stream: ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let pending = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      pending += value;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) yield JSON.parse(line) as Line;
    }
  }

  threads(): Promise<ThreadSummary[]> {
    return call(this.token, 'GET', '/chat?limit=50');
  }

  thread(id: string): Promise<Thread> {
    return call(this.token, 'GET', `/chat/${id}`);
  }

  updateThread(id: string, change: { name?: string; starred?: boolean }): Promise<unknown> {
    return call(this.token, 'PUT', `/chat/${id}`, change);
  }

  archiveThread(id: string): Promise<unknown> {
    return call(this.token, 'DELETE', `/chat/${id}`);
  }

  /**
   * The two-step upload (CONTRACTS §8): a permission from the gateway, then the file to the storage host,
   * without the token. The storage host is another origin that sends no CORS headers, so the browser sends the
   * form but cannot read the answer; a file that did not arrive is refused (422) when the message names it.
   */
  async upload(file: File): Promise<string> {
    const query = new URLSearchParams({
      filename: file.name,
      mimetype: file.type || 'application/octet-stream',
    });
    const permission = await call<{ url: string; fields: Record<string, string> }>(
      this.token,
      'GET',
      `/chat/files/upload?${query}`,
    );
    const form = new FormData();
    for (const [name, value] of Object.entries(permission.fields)) form.append(name, value);
    form.append('file', file);
    await fetch(permission.url, { method: 'POST', body: form, mode: 'no-cors' });
    return permission.fields['x-amz-meta-file-id'];
  }
}

async function call<T>(credential: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${credential}`,
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
