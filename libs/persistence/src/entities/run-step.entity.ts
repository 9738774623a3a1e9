import { Entity, PrimaryColumn } from 'typeorm';
import { Question } from '@app/contracts';
import { IntegerColumn, JsonbColumn, TextColumn, TimestampColumn } from './columns';

/** A tool call as the model asked for it; `arguments` is the model's raw input (JSON text or a value). */
export interface StepToolCall {
  callId: string;
  name: string;
  arguments: unknown;
}

/** One model call of a reply, stored as soon as the call ends (before any of its tools run). */
@Entity('run_steps')
export class RunStepEntity {
  @PrimaryColumn({ name: 'message_id', type: 'uuid' })
  messageId: string;

  /** 1-based, as `step.started` numbers it. */
  @PrimaryColumn({ type: 'integer' })
  step: number;

  @TextColumn({ default: '' })
  text: string;

  @JsonbColumn({ name: 'tool_calls', default: [] })
  toolCalls: StepToolCall[];

  @JsonbColumn({ nullable: true })
  questions: Question[] | null;

  @JsonbColumn({ name: 'structured_output', nullable: true })
  structuredOutput: Record<string, unknown> | null;

  @IntegerColumn({ name: 'usage_tokens', default: 0 })
  usageTokens: number;

  /** The part of `usageTokens` the model wrote; the rest it read. 0 on a step of a model that does not say. */
  @IntegerColumn({ name: 'output_tokens', default: 0 })
  outputTokens: number = 0;

  /** The part of the tokens read that the vendor took from its prompt cache (CONTRACTS §24). */
  @IntegerColumn({ name: 'cached_input_tokens', default: 0 })
  cachedInputTokens: number = 0;

  /** The model that answered: the agent's or one of its fallback models; null on steps stored before §24. */
  @TextColumn({ nullable: true })
  model: string | null = null;

  /** Length of the reply's streamed content once this step ended: where a re-run next step's text starts. */
  @IntegerColumn({ name: 'content_length', default: 0 })
  contentLength: number;

  /**
   * Length of each text delta the step streamed, in order, so a log rebuilt from PostgreSQL (Redis lost it)
   * cuts the text as it was streamed; null on steps stored before they were kept.
   */
  @IntegerColumn({ name: 'delta_lengths', array: true, nullable: true })
  deltaLengths: number[] | null;

  /**
   * What the step streamed, when that is not its `text`: a model call resumed after a crash whose answer did
   * not repeat the text the interrupted call had streamed. Null when it streamed exactly `text`.
   */
  @TextColumn({ name: 'streamed_text', nullable: true })
  streamedText: string | null;

  @TimestampColumn({ name: 'started_at' })
  startedAt: Date;

  @TimestampColumn({ name: 'completed_at', default: () => 'now()' })
  completedAt: Date;
}
