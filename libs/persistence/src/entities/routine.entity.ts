import { Column, Entity, PrimaryColumn } from 'typeorm';

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
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'org_id', type: 'uuid' })
  orgId: string;

  /** The key that created it: revoking that key stops the routine. */
  @Column({ name: 'key_id', type: 'uuid' })
  keyId: string;

  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId: string;

  /** A 5-field cron expression. */
  @Column({ type: 'text' })
  schedule: string;

  /** An IANA time zone the schedule is read in. */
  @Column({ type: 'text' })
  timezone: string;

  @Column({ type: 'jsonb' })
  message: RoutineMessage;

  @Column({ type: 'jsonb' })
  options: RoutineOptions;

  @Column({ type: 'boolean' })
  active: boolean;

  /** Why it stopped firing by itself (its agent archived, its key revoked); null while active or paused by hand. */
  @Column({ name: 'inactive_reason', type: 'text', nullable: true })
  inactiveReason: string | null;

  @Column({ name: 'next_run_at', type: 'timestamptz', nullable: true })
  nextRunAt: Date | null;

  @Column({ name: 'last_run_at', type: 'timestamptz', nullable: true })
  lastRunAt: Date | null;

  @Column({ name: 'last_thread_id', type: 'uuid', nullable: true })
  lastThreadId: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
