import { Column, Entity, PrimaryColumn, Unique } from 'typeorm';

/** A long-term memory file: one per (organization, namespace, path). */
@Entity('memory_files')
@Unique('memory_files_org_namespace_path_key', ['orgId', 'namespace', 'path'])
export class MemoryFileEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'org_id', type: 'uuid' })
  orgId: string;

  /** Namespaces are per organization: another organization's namespace of the same name is another one. */
  @Column({ type: 'varchar', length: 128 })
  namespace: string;

  /** `name` or `folder/name`. */
  @Column({ type: 'text' })
  path: string;

  @Column({ type: 'text' })
  purpose: string;

  @Column({ type: 'text', default: '' })
  content: string;

  /**
   * Every end user whose agent run wrote the file (CONTRACTS §21), in the order they first did; writes through
   * the HTTP routes, with a key, add no one.
   */
  @Column({ name: 'written_by_user_ids', type: 'text', array: true, default: () => `'{}'` })
  writtenByUserIds: string[];

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;

  /**
   * `updated_at` as an ISO string with microseconds, set by the database on every write and strictly
   * increasing per file: the optimistic-concurrency token a client echoes back (opaque to it).
   */
  @Column({ type: 'text' })
  version: string;
}
