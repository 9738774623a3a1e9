import { Entity } from 'typeorm';
import { MessageRole, MessageStatus, Question } from '@app/contracts';
import {
  BooleanColumn,
  CreatedAtColumn,
  IdColumn,
  IntegerColumn,
  JsonbColumn,
  OrgIdColumn,
  TextColumn,
  TimestampColumn,
  UpdatedAtColumn,
  UuidColumn,
} from './columns';

@Entity('messages')
export class MessageEntity {
  @IdColumn()
  id: string;

  @UuidColumn({ name: 'thread_id' })
  threadId: string;

  @OrgIdColumn()
  orgId: string;

  /** Order within the thread over every branch, from 0; replies run in this order. */
  @IntegerColumn()
  position: number;

  @TextColumn()
  role: MessageRole;

  @TextColumn({ default: '' })
  content: string;

  @TextColumn({ name: 'error_code', nullable: true })
  errorCode: 'budget_exhausted' | 'guardrail_blocked' | null;

  @JsonbColumn({ nullable: true })
  questions: Question[] | null;

  @TextColumn()
  status: MessageStatus;

  /** True while pending or running. */
  @BooleanColumn()
  live: boolean;

  /** The reply's stream lines minus text deltas and the final line (CONTRACTS §5); null on user messages. */
  @JsonbColumn({ nullable: true })
  events: Record<string, unknown>[] | null;

  @JsonbColumn({ name: 'structured_output', nullable: true })
  structuredOutput: Record<string, unknown> | null;

  /** Agent that wrote an assistant message; null on user messages. */
  @UuidColumn({ name: 'agent_id', nullable: true })
  agentId: string | null;

  /** The user message an assistant reply answers; its run sees the thread up to that message. */
  @UuidColumn({ name: 'reply_to_id', nullable: true })
  replyToId: string | null;

  /**
   * The message this one follows on its branch (CONTRACTS §19): a reply's user message, a user message's
   * leaf when it was posted (null for a thread's first message, and for an edit of it).
   */
  @UuidColumn({ name: 'parent_id', nullable: true })
  parentId: string | null;

  @JsonbColumn({ name: 'file_ids', default: [] })
  fileIds: string[];

  @JsonbColumn({ name: 'source_ids', nullable: true })
  sourceIds: number[] | null;

  @JsonbColumn({ name: 'document_ids', nullable: true })
  documentIds: string[] | null;

  @JsonbColumn({ name: 'disabled_tools', nullable: true })
  disabledTools: string[] | null;

  /**
   * The agent version the reply runs (CONTRACTS §23): set when stored for a pinned reply, else when its run
   * first starts (the agent's latest then), so a resumed run keeps the configuration it started with.
   */
  @IntegerColumn({ name: 'agent_version', nullable: true })
  agentVersion: number | null;

  /** Cap on the tool rounds of this reply. */
  @IntegerColumn({ name: 'max_steps', nullable: true })
  maxSteps: number | null;

  /** Length of each text delta the reply streamed, in order: replays from PostgreSQL cut the content by it. */
  @IntegerColumn({ name: 'delta_lengths', array: true, nullable: true })
  deltaLengths: number[] | null;

  /** Tokens the reply spent (input and output), counted into budgets. */
  @IntegerColumn({ name: 'usage_tokens', default: 0 })
  usageTokens: number;

  /** What an ended reply's steps read and wrote (usage_tokens is their sum), and the tool calls they asked for. */
  @IntegerColumn({ name: 'input_tokens', default: 0 })
  inputTokens: number;

  @IntegerColumn({ name: 'output_tokens', default: 0 })
  outputTokens: number;

  @IntegerColumn({ name: 'tool_calls', default: 0 })
  toolCalls: number;

  /** The part of input_tokens the vendors read from their prompt cache (CONTRACTS §24). */
  @IntegerColumn({ name: 'cached_input_tokens', default: 0 })
  cachedInputTokens: number;

  /** The model that answered the reply's last step (the agent's, or a fallback); null on other messages. */
  @TextColumn({ nullable: true })
  model: string | null;

  /** What a Responses API request attached to the reply (CONTRACTS §18), shown in its Response; else null. */
  @JsonbColumn({ nullable: true })
  metadata: Record<string, string> | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;

  @TimestampColumn({ name: 'completed_at', nullable: true })
  completedAt: Date | null;

  /**
   * When a pending reply was parked for its end user's spending turn (sql/run-scheduling.sql.ts, rule 3): it ran
   * before and waits for the turn; null otherwise.
   */
  @TimestampColumn({ name: 'budget_turn_parked_at', nullable: true })
  budgetTurnParkedAt: Date | null;
}
