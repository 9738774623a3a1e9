import { Column, Entity } from 'typeorm';
import {
  BooleanColumn,
  CreatedAtColumn,
  IdColumn,
  OrgIdColumn,
  TextColumn,
  TimestampColumn,
  UpdatedAtColumn,
  UuidColumn,
} from './columns';

export type ThreadInception = 'conversational' | 'routine' | 'eval';

@Entity('threads')
export class ThreadEntity {
  @IdColumn()
  id: string;

  @OrgIdColumn()
  orgId: string;

  /** End user owning the thread: a free string scoped to the organization. */
  @TextColumn({ name: 'user_id', nullable: true })
  userId: string | null;

  @UuidColumn({ name: 'agent_id' })
  agentId: string;

  @TextColumn()
  name: string;

  @TextColumn({ name: 'project_id', nullable: true })
  projectId: string | null;

  /** Bound when the thread starts, for its whole life (spec 4.2 rules 1-4). */
  @Column({ name: 'memory_namespace', type: 'varchar', length: 128, nullable: true })
  memoryNamespace: string | null;

  @BooleanColumn({ default: false })
  starred: boolean;

  @TextColumn({ default: 'conversational' })
  inception: ThreadInception;

  @TimestampColumn({ name: 'archived_at', nullable: true })
  archivedAt: Date | null;

  /** POST /chat/{id}/compact: the thread's next run summarizes its older messages whatever their size. */
  @TimestampColumn({ name: 'compaction_requested_at', nullable: true })
  compactionRequestedAt: Date | null;

  /**
   * The leaf of the branch the thread shows (CONTRACTS §19): GET /chat/{id} lists it and its ancestors, and a
   * follow-up continues it. Set to each new reply, or by PUT /chat/{id}/branches/active.
   */
  @UuidColumn({ name: 'active_leaf_id', nullable: true })
  activeLeafId: string | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
