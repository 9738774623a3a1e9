/** Wire shapes of API-SPEC 2.3-2.6, and the mapper every app uses to render a stored message. */

export interface ShareLinkResponse {
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

export interface ConversationFileResponse {
  id: string;
  name: string;
  size: number;
  mimetype: string;
  origin: 'user' | 'agent';
  share_links: ShareLinkResponse[];
  url: string;
}

export type MessageRole = 'user' | 'assistant';
export type MessageStatus = 'pending' | 'running' | 'success' | 'error' | 'cancelled';

/** A question the agent asks the user (its `ask_user` tool): on the message, in its stream, in its checkpoint. */
export interface Question {
  prompt: string;
  options?: string[];
}

export interface AgentRef {
  id: string;
  name: string;
}

export interface MessageResponse {
  id: string;
  thread_id: string;
  role: string;
  content: string;
  error_code: string | null;
  questions: Question[] | null;
  live: boolean;
  status: string;
  events: Record<string, unknown>[] | null;
  structured_output: Record<string, unknown> | null;
  files: ConversationFileResponse[];
  agent: AgentRef | 'ARCHIVED' | null;
}

/** The stored fields the mapper reads (structurally a MessageEntity). */
export interface MessageRecord {
  id: string;
  threadId: string;
  role: string;
  content: string;
  errorCode: string | null;
  questions: Question[] | null;
  live: boolean;
  status: string;
  events: Record<string, unknown>[] | null;
  structuredOutput: Record<string, unknown> | null;
  agentId: string | null;
}

export interface AgentRecord {
  id: string;
  name: string;
  archivedAt: Date | null;
}

/** Message.agent: the writer's ref, "ARCHIVED" once that agent is archived, null on user messages. */
export function toAgentRef(agent: AgentRecord | null | undefined): AgentRef | 'ARCHIVED' | null {
  if (!agent) return null;
  return agent.archivedAt ? 'ARCHIVED' : { id: agent.id, name: agent.name };
}

/** A stored message as API-SPEC 2.3 shows it: exactly these fields, all present. */
export function toMessageResponse(
  message: MessageRecord,
  agent: AgentRecord | null | undefined,
  files: ConversationFileResponse[] = [],
): MessageResponse {
  return {
    id: message.id,
    thread_id: message.threadId,
    role: message.role,
    content: message.content,
    error_code: message.errorCode,
    questions: message.questions,
    live: message.live,
    status: message.status,
    events: message.events,
    structured_output: message.structuredOutput,
    files,
    agent: message.role === 'assistant' && message.agentId ? toAgentRef(agent) : null,
  };
}
