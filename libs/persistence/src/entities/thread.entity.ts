import { Column, Entity, PrimaryColumn } from 'typeorm';

export type ThreadInception = 'conversational' | 'routine' | 'eval';

@Entity('threads')
export class ThreadEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'org_id', type: 'uuid' })
  orgId: string;

  /** End user owning the thread: a free string scoped to the organization. */
  @Column({ name: 'user_id', type: 'text', nullable: true })
  userId: string | null;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'project_id', type: 'text', nullable: true })
  projectId: string | null;

  /** Bound when the thread starts, for its whole life (spec 4.2 rules 1-4). */
  @Column({ name: 'memory_namespace', type: 'varchar', length: 128, nullable: true })
  memoryNamespace: string | null;

  @Column({ type: 'boolean', default: false })
  starred: boolean;

  @Column({ type: 'text', default: 'conversational' })
  inception: ThreadInception;

  @Column({ name: 'archived_at', type: 'timestamptz', nullable: true })
  archivedAt: Date | null;

  /** POST /chat/{id}/compact: the thread's next run summarizes its older messages whatever their size. */
  @Column({ name: 'compaction_requested_at', type: 'timestamptz', nullable: true })
  compactionRequestedAt: Date | null;

  /**
   * The leaf of the branch the thread shows (CONTRACTS §19): GET /chat/{id} lists it and its ancestors, and a
   * follow-up continues it. Set to each new reply, or by PUT /chat/{id}/branches/active.
   */
  @Column({ name: 'active_leaf_id', type: 'uuid', nullable: true })
  activeLeafId: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
