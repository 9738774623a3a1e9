import { Column, Entity, Unique } from 'typeorm';
import { CreatedAtColumn, IdColumn, OrgIdColumn, TextColumn, UpdatedAtColumn } from './columns';

/** A long-term memory file: one per (organization, namespace, path). */
@Entity('memory_files')
@Unique('memory_files_org_namespace_path_key', ['orgId', 'namespace', 'path'])
export class MemoryFileEntity {
  @IdColumn()
  id: string;

  @OrgIdColumn()
  orgId: string;

  /** Namespaces are per organization: another organization's namespace of the same name is another one. */
  @Column({ type: 'varchar', length: 128 })
  namespace: string;

  /** `name` or `folder/name`. */
  @TextColumn()
  path: string;

  @TextColumn()
  purpose: string;

  @TextColumn({ default: '' })
  content: string;

  /**
   * Every end user whose agent run wrote the file (CONTRACTS §21), in the order they first did; writes through
   * the HTTP routes, with a key, add no one.
   */
  @TextColumn({ name: 'written_by_user_ids', array: true, default: () => `'{}'` })
  writtenByUserIds: string[];

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;

  /**
   * `updated_at` as an ISO string with microseconds, set by the database on every write and strictly
   * increasing per file: the optimistic-concurrency token a client echoes back (opaque to it).
   */
  @TextColumn()
  version: string;
}
