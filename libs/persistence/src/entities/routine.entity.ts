import { Entity } from 'typeorm';
import {
  BooleanColumn,
  CreatedAtColumn,
  IdColumn,
  JsonbColumn,
  OrgIdColumn,
  TextColumn,
  TimestampColumn,
  UpdatedAtColumn,
  UuidColumn,
} from './columns';

/** What a firing sends, as the routine was given it: a HumanMessage and the options of POST /chat it allows. */
interface RoutineMessage {
  content: string;
  file_ids?: string[] | null;
  source_ids?: number[] | null;
  document_ids?: string[] | null;
  disabled_tools?: string[] | null;
}

interface RoutineOptions {
  max_steps?: number | null;
  memory_namespace?: string | null;
}

/** A thread started on a schedule for one end user (CONTRACTS §13). */
@Entity('routines')
export class RoutineEntity {
  @IdColumn()
  id: string;

  @OrgIdColumn()
  orgId: string;

  /** The key that created it: revoking that key stops the routine. */
  @UuidColumn({ name: 'key_id' })
  keyId: string;

  @TextColumn({ name: 'user_id' })
  userId: string;

  @TextColumn()
  name: string;

  @UuidColumn({ name: 'agent_id' })
  agentId: string;

  /** A 5-field cron expression. */
  @TextColumn()
  schedule: string;

  /** An IANA time zone the schedule is read in. */
  @TextColumn()
  timezone: string;

  @JsonbColumn()
  message: RoutineMessage;

  @JsonbColumn()
  options: RoutineOptions;

  @BooleanColumn()
  active: boolean;

  /** Why it stopped firing by itself (its agent archived, its key revoked); null while active or paused by hand. */
  @TextColumn({ name: 'inactive_reason', nullable: true })
  inactiveReason: string | null;

  @TimestampColumn({ name: 'next_run_at', nullable: true })
  nextRunAt: Date | null;

  @TimestampColumn({ name: 'last_run_at', nullable: true })
  lastRunAt: Date | null;

  @UuidColumn({ name: 'last_thread_id', nullable: true })
  lastThreadId: string | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
