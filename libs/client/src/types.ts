/**
 * Wire shapes of the chat endpoints. They mirror the service's own
 * types in libs/contracts so the client compiles on its own; test/e2e/client.e2e-spec.ts checks at
 * compile time that both stay identical.
 */

export interface ShareLink {
  created_at: string;
  id: string;
  last_accessed_at: string | null;
  access_count: number;
  revoked: boolean;
  expires_at: string | null;
  expired: boolean;
  protected: boolean;
  url: string;
}

export interface ConversationFile {
  id: string;
  name: string;
  size: number;
  mimetype: string;
  origin: 'user' | 'agent';
  share_links: ShareLink[];
  url: string;
}

export interface Question {
  prompt: string;
  options?: string[];
}

export interface AgentRef {
  id: string;
  name: string;
}

export interface Message {
  id: string;
  thread_id: string;
  /** `user` or `assistant`. */
  role: string;
  content: string;
  error_code: string | null;
  questions: Question[] | null;
  live: boolean;
  /** `pending`, `running`, `success`, `error` or `cancelled`. */
  status: string;
  events: Record<string, unknown>[] | null;
  structured_output: Record<string, unknown> | null;
  files: ConversationFile[];
  agent: AgentRef | 'ARCHIVED' | null;
}

export interface Thread {
  id: string;
  name: string;
  created_at: string;
  live: boolean;
  starred: boolean;
  project_id: string | null;
  messages: Message[];
  inception: 'conversational' | 'routine' | 'eval';
}

export interface ThreadSummary {
  id: string;
  name: string;
  created_at: string;
  live: boolean;
  agent: AgentRef;
  starred: boolean;
}

/** The user's message. */
export interface HumanMessage {
  content: string;
  source_ids?: number[] | null;
  document_ids?: string[] | null;
  /** `web`, `company_documents` or `mcp:<server>`. */
  disabled_tools?: string[] | null;
  /** At most 5, unique: ids of uploaded files. */
  file_ids?: string[] | null;
}

export interface StartChatOptions {
  agent_id: string;
  user_id: string;
  max_steps?: number | null;
  memory_namespace?: string | null;
  /** Runs the reply with this version of the agent; omitted: the latest. */
  agent_version?: number | null;
}

/** POST /chat body. */
export interface StartChat {
  name?: string | null;
  project_id?: string | null;
  message: HumanMessage;
  options: StartChatOptions;
}

export interface PostMessageOptions {
  user_id?: string | null;
  max_steps?: number | null;
  /** Only the thread's own namespace is accepted: it cannot change. */
  memory_namespace?: string | null;
  multitask_strategy?: 'enqueue' | 'reject' | 'interrupt' | null;
  /** Runs this reply with that version of the thread's agent; omitted: the latest. */
  agent_version?: number | null;
}

/** POST /chat/{thread_id} body. */
export interface PostMessage {
  message: HumanMessage;
  options?: PostMessageOptions | null;
}

/** GET /chat query. */
/**
 * GET /chat query. Like every call option of this client it is camelCase; request bodies (StartChat,
 * PostMessage, UpdateThread) are the service's JSON as is, snake_case.
 */
export interface ListThreads {
  userId: string;
  /** 1..100, default 20. */
  limit?: number;
  /** At most 10. */
  agentIds?: string[];
  /** The `nextCursor` of the previous page: the threads after it. */
  before?: string;
}

/** One page of GET /chat. */
export interface ThreadPage {
  threads: ThreadSummary[];
  /** Pass as `before` for the next page; absent on the last page. */
  nextCursor?: string;
}

/** PUT /chat/{thread_id} body. */
export interface UpdateThread {
  name?: string | null;
  starred?: boolean | null;
  options?: { user_id?: string | null } | null;
}

/** One line of a reply stream: `seq` counts 0, 1, 2, … per reply, without gaps. */
export type ReplyEvent =
  | {
      seq: number;
      type: 'message.started';
      message_id: string;
      thread_id: string;
      agent_version?: number | null;
    }
  | { seq: number; type: 'step.started'; step: number }
  | { seq: number; type: 'text.delta'; delta: string }
  | {
      seq: number;
      type: 'tool.call';
      step: number;
      call_id: string;
      name: string;
      arguments: Record<string, unknown>;
    }
  | {
      seq: number;
      type: 'tool.result';
      step: number;
      call_id: string;
      name: string;
      output: unknown;
      is_error: boolean;
    }
  | { seq: number; type: 'questions'; questions: Question[] }
  | {
      seq: number;
      type: 'approval.requested';
      step: number;
      call_id: string;
      name: string;
      arguments: Record<string, unknown>;
    }
  | { seq: number; type: 'approval.decided'; step: number; call_id: string; decision: 'approve' | 'deny' }
  | { seq: number; type: 'context.compacted'; summarized_messages: number; summary_tokens: number }
  | { seq: number; type: 'model.fallback'; step: number; from: string; to: string; reason: string }
  | {
      seq: number;
      type: 'guardrail.triggered';
      stage: 'input' | 'output';
      kind: 'email' | 'phone' | 'card' | 'iban' | 'blocked_term' | 'moderation';
      action: 'redacted' | 'blocked';
    }
  | { seq: number; type: 'message.completed'; message: Message };

export type ReplyEventType = ReplyEvent['type'];

/** One failing field of a 422 (the OpenAPI document's ValidationIssueResponse, Pydantic's error item). */
export interface ValidationIssue {
  /** Where the value was: `body`, `query`, `path` or `header`, then field names and list indexes. */
  loc: (string | number)[];
  msg: string;
  /** Pydantic's error type, e.g. `missing`, `string_too_long`. */
  type: string;
  /** The value that failed, as sent. */
  input?: unknown;
  /** The rule's parameters, e.g. `{max_length: 30000}`. */
  ctx?: Record<string, unknown>;
}

/** The body of an error answer: `{detail: message}`, or for a 422 `{detail: [issues]}` (ErrorResponse / ValidationErrorResponse). */
export type ErrorBody = { detail: string } | { detail: ValidationIssue[] };
