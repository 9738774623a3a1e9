/** Wire shapes of API-SPEC 2.3-2.6, and the mapper every app uses to render a stored message. */
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';

/*
 * The response shapes are classes only so that @nestjs/swagger can describe them: responses are built as plain
 * object literals by the mappers, never instantiated.
 */

export const DATE_TIME = {
  type: 'string',
  format: 'date-time',
  example: '2026-11-25T09:30:00.000Z',
} as const;
export const FREE_FORM = { type: 'object', additionalProperties: true } as const;

/** A stored instant that may be unset, as the wire writes it: ISO 8601, or null. */
export const isoOrNull = (date: Date | null): string | null => (date ? date.toISOString() : null);

export class ShareLinkResponse {
  @ApiProperty(DATE_TIME)
  created_at: string;
  @ApiProperty({ example: 'lnk_4Qm9w2JpR7sT1vXz' })
  id: string;
  @ApiProperty({ ...DATE_TIME, nullable: true })
  last_accessed_at: string | null;
  @ApiProperty({ type: 'integer', minimum: 0 })
  access_count: number;
  @ApiProperty()
  revoked: boolean;
  @ApiProperty({ ...DATE_TIME, nullable: true })
  expires_at: string | null;
  @ApiProperty()
  expired: boolean;
  @ApiProperty({ description: 'Whether the link wants a password in the header x-share-password.' })
  protected: boolean;
  @ApiProperty({ description: 'Public download address; read-only.', readOnly: true })
  url: string;
}

export class ConversationFileResponse {
  @ApiProperty()
  id: string;
  @ApiProperty({ example: 'report.pdf' })
  name: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Bytes.' })
  size: number;
  @ApiProperty({ example: 'application/pdf' })
  mimetype: string;
  @ApiProperty({ enum: ['user', 'agent'] })
  origin: 'user' | 'agent';
  @ApiProperty({ type: [ShareLinkResponse] })
  share_links: ShareLinkResponse[];
  @ApiProperty({
    description: 'Download address that works without the service token for a limited time; read-only.',
    readOnly: true,
  })
  url: string;
}

export type MessageRole = 'user' | 'assistant';
/** What a person decided about a tool call that waited for them (CONTRACTS §19); unanswered in time: deny. */
export type ApprovalDecision = 'approve' | 'deny';

export type MessageStatus = 'pending' | 'running' | 'requires_action' | 'success' | 'error' | 'cancelled';

/**
 * A question the agent asks the user (its `ask_user` tool): on the message, in its stream, in its checkpoint
 * (API-SPEC 2.4). A class so the OpenAPI document can describe it; used as a plain shape everywhere.
 */
export class Question {
  @ApiProperty({ description: 'Text of the question.', example: 'Which format?' })
  prompt: string;
  @ApiPropertyOptional({
    type: [String],
    description: 'Quick-reply suggestions; empty when none make sense.',
    example: ['PDF', 'CSV'],
  })
  options?: string[];
}

export class AgentRef {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'Support' })
  name: string;
}

@ApiExtraModels(AgentRef)
export class MessageResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ format: 'uuid' })
  thread_id: string;
  @ApiProperty({ description: 'user or assistant.', example: 'assistant' })
  role: string;
  @ApiProperty({ description: 'The text; for a live reply, what was produced so far.' })
  content: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    enum: ['budget_exhausted', 'guardrail_blocked'],
    description:
      "budget_exhausted when the agent's token budget was spent; guardrail_blocked when one of the agent's " +
      'guardrails blocked the message or stopped the reply (CONTRACTS §24); reaching max_steps is not an error.',
  })
  error_code: string | null;
  @ApiProperty({ type: [Question], nullable: true })
  questions: Question[] | null;
  @ApiProperty({ description: 'True while the message is pending, running or waiting for an approval.' })
  live: boolean;
  @ApiProperty({
    description:
      'pending (queued), running, requires_action (a tool call waits for a person: see `questions`), success, error or cancelled.',
    example: 'pending',
  })
  status: string;
  @ApiProperty({
    type: 'array',
    items: FREE_FORM,
    nullable: true,
    description:
      "The reply stream's lines but text.delta and message.completed, in order; null on user messages.",
  })
  events: Record<string, unknown>[] | null;
  @ApiProperty({ ...FREE_FORM, nullable: true })
  structured_output: Record<string, unknown> | null;
  @ApiProperty({ type: [ConversationFileResponse] })
  files: ConversationFileResponse[];
  @ApiProperty({
    // null sits in the string branch: OpenAPI 3.0 wants a type beside nullable.
    oneOf: [{ $ref: getSchemaPath(AgentRef) }, { type: 'string', enum: ['ARCHIVED'], nullable: true }],
    description: 'The agent that wrote the message; ARCHIVED once it is archived; null on user messages.',
  })
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
function toAgentRef(agent: AgentRecord | null | undefined): AgentRef | 'ARCHIVED' | null {
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

/**
 * An ended reply's final Message, the one rendering of it: the `message.completed` line of its stream (at the
 * finish, and replayed from PostgreSQL) and the data of the webhook event that reports the end
 * (`endedReplyEvent`) carry this.
 */
export function endedReplyMessage(
  reply: MessageRecord,
  agent: AgentRecord | null | undefined,
  files: ConversationFileResponse[] = [],
): Record<string, unknown> {
  return { ...toMessageResponse(reply, agent, files) };
}
