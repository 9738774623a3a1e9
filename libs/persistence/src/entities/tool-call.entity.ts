import { Entity, PrimaryColumn } from 'typeorm';
import {
  BooleanColumn,
  CreatedAtColumn,
  IntegerColumn,
  JsonbColumn,
  TextColumn,
  UuidColumn,
} from './columns';

/** A tool call's result, written once under `message_id:step:call_id` before its `tool.result` is emitted. */
@Entity('tool_calls')
export class ToolCallEntity {
  @PrimaryColumn({ name: 'idempotency_key', type: 'text' })
  idempotencyKey: string;

  @UuidColumn({ name: 'message_id' })
  messageId: string;

  @IntegerColumn()
  step: number;

  @TextColumn({ name: 'call_id' })
  callId: string;

  @TextColumn()
  name: string;

  @JsonbColumn()
  arguments: Record<string, unknown>;

  @JsonbColumn({ nullable: true })
  output: unknown;

  @BooleanColumn({ name: 'is_error' })
  isError: boolean;

  @IntegerColumn({ name: 'duration_ms', default: 0 })
  durationMs: number;

  @CreatedAtColumn()
  createdAt: Date;
}
