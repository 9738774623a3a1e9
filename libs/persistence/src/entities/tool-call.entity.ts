import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A tool call's result, written once under `message_id:step:call_id` before its `tool.result` is emitted. */
@Entity('tool_calls')
export class ToolCallEntity {
  @PrimaryColumn({ name: 'idempotency_key', type: 'text' })
  idempotencyKey: string;

  @Column({ name: 'message_id', type: 'uuid' })
  messageId: string;

  @Column({ type: 'integer' })
  step: number;

  @Column({ name: 'call_id', type: 'text' })
  callId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'jsonb' })
  arguments: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  output: unknown;

  @Column({ name: 'is_error', type: 'boolean' })
  isError: boolean;

  @Column({ name: 'duration_ms', type: 'integer', default: 0 })
  durationMs: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
