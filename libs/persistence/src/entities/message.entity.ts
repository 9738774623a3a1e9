import { Column, Entity, PrimaryColumn } from 'typeorm';
import { MessageRole, MessageStatus, Question } from '@app/contracts';

@Entity('messages')
export class MessageEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'thread_id', type: 'uuid' })
  threadId: string;

  @Column({ name: 'org_id', type: 'uuid' })
  orgId: string;

  /** Order within the thread over every branch, from 0; replies run in this order. */
  @Column({ type: 'integer' })
  position: number;

  @Column({ type: 'text' })
  role: MessageRole;

  @Column({ type: 'text', default: '' })
  content: string;

  @Column({ name: 'error_code', type: 'text', nullable: true })
  errorCode: 'budget_exhausted' | 'guardrail_blocked' | null;

  @Column({ type: 'jsonb', nullable: true })
  questions: Question[] | null;

  @Column({ type: 'text' })
  status: MessageStatus;

  /** True while pending or running. */
  @Column({ type: 'boolean' })
  live: boolean;

  /** The reply's stream lines minus text deltas and the final line (CONTRACTS §5); null on user messages. */
  @Column({ type: 'jsonb', nullable: true })
  events: Record<string, unknown>[] | null;

  @Column({ name: 'structured_output', type: 'jsonb', nullable: true })
  structuredOutput: Record<string, unknown> | null;

  /** Agent that wrote an assistant message; null on user messages. */
  @Column({ name: 'agent_id', type: 'uuid', nullable: true })
  agentId: string | null;

  /** The user message an assistant reply answers; its run sees the thread up to that message. */
  @Column({ name: 'reply_to_id', type: 'uuid', nullable: true })
  replyToId: string | null;

  /**
   * The message this one follows on its branch (CONTRACTS §19): a reply's user message, a user message's
   * leaf when it was posted (null for a thread's first message, and for an edit of it).
   */
  @Column({ name: 'parent_id', type: 'uuid', nullable: true })
  parentId: string | null;

  @Column({ name: 'file_ids', type: 'jsonb', default: [] })
  fileIds: string[];

  @Column({ name: 'source_ids', type: 'jsonb', nullable: true })
  sourceIds: number[] | null;

  @Column({ name: 'document_ids', type: 'jsonb', nullable: true })
  documentIds: string[] | null;

  @Column({ name: 'disabled_tools', type: 'jsonb', nullable: true })
  disabledTools: string[] | null;

  /**
   * The agent version the reply runs (CONTRACTS §23): set when stored for a pinned reply, else when its run
   * first starts (the agent's latest then), so a resumed run keeps the configuration it started with.
   */
  @Column({ name: 'agent_version', type: 'integer', nullable: true })
  agentVersion: number | null;

  /** Cap on the tool rounds of this reply. */
  @Column({ name: 'max_steps', type: 'integer', nullable: true })
  maxSteps: number | null;

  /** Length of each text delta the reply streamed, in order: replays from PostgreSQL cut the content by it. */
  @Column({ name: 'delta_lengths', type: 'integer', array: true, nullable: true })
  deltaLengths: number[] | null;

  /** Tokens the reply spent (input and output), counted into budgets. */
  @Column({ name: 'usage_tokens', type: 'integer', default: 0 })
  usageTokens: number;

  /** What an ended reply's steps read and wrote (usage_tokens is their sum), and the tool calls they asked for. */
  @Column({ name: 'input_tokens', type: 'integer', default: 0 })
  inputTokens: number;

  @Column({ name: 'output_tokens', type: 'integer', default: 0 })
  outputTokens: number;

  @Column({ name: 'tool_calls', type: 'integer', default: 0 })
  toolCalls: number;

  /** The part of input_tokens the vendors read from their prompt cache (CONTRACTS §24). */
  @Column({ name: 'cached_input_tokens', type: 'integer', default: 0 })
  cachedInputTokens: number;

  /** The model that answered the reply's last step (the agent's, or a fallback); null on other messages. */
  @Column({ type: 'text', nullable: true })
  model: string | null;

  /** What a Responses API request attached to the reply (CONTRACTS §18), shown in its Response; else null. */
  @Column({ type: 'jsonb', nullable: true })
  metadata: Record<string, string> | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  /**
   * When a pending reply was parked for its end user's spending turn (sql/run-scheduling.sql.ts, rule 3): it ran
   * before and waits for the turn; null otherwise.
   */
  @Column({ name: 'budget_turn_parked_at', type: 'timestamptz', nullable: true })
  budgetTurnParkedAt: Date | null;
}
