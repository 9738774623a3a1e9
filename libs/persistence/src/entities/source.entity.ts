import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintAsNumber } from './column-types';

type SourceStore = 'googledrive' | 'sharepoint' | 'draganddrop';
type SourceScope = 'organization' | 'private';
export type SourceStatus = 'pending' | 'syncing' | 'synced' | 'error';

/**
 * Where a sync stands (resumable): `listing` until the store's listing or change feed is read to its end,
 * then `fetching` the documents whose wanted version differs from the indexed one, then `idle`.
 * `cursor` is the store's position (Drive changes page token, Graph delta link) of the last finished sync,
 * `nextCursor` the one a finished listing reached; `generation` tags documents seen by a full listing.
 */
export interface SourceSyncState {
  phase: 'idle' | 'listing' | 'fetching';
  cursor: string | null;
  nextCursor: string | null;
  generation: number;
  full: boolean;
  /** Drive folders known to be inside the source's folder (recursive syncs). */
  folders?: string[];
  /** Graph drive and folder the source resolves to. */
  driveId?: string;
  folderPath?: string;
}

/** A data source (API-SPEC 2.9): integer id, public pid; counters are recomputed from its documents. */
@Entity('sources')
export class SourceEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'text', unique: true })
  pid: string;

  @Column({ name: 'org_id', type: 'uuid' })
  orgId: string;

  @Column({ name: 'connection_id', type: 'uuid' })
  connectionId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  scope: SourceScope;

  @Column({ name: 'created_by', type: 'text' })
  createdBy: string;

  @Column({ type: 'text' })
  store: SourceStore;

  @Column({ type: 'text', default: 'pending' })
  status: SourceStatus;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason: string | null;

  @Column({ type: 'jsonb', default: {} })
  config: Record<string, unknown>;

  /** Text search configuration of its passages (PostgreSQL regconfig name). */
  @Column({ type: 'text', default: 'english' })
  language: string;

  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  size: number;

  @Column({ name: 'embedded_size', type: 'bigint', default: 0, transformer: bigintAsNumber })
  embeddedSize: number;

  @Column({ name: 'documents_synced', type: 'integer', default: 0 })
  documentsSynced: number;

  @Column({ name: 'documents_failed', type: 'integer', default: 0 })
  documentsFailed: number;

  @Column({ name: 'oversized_documents', type: 'integer', default: 0 })
  oversizedDocuments: number;

  @Column({ name: 'documents_embedded', type: 'integer', default: 0 })
  documentsEmbedded: number;

  @Column({ name: 'sync_state', type: 'jsonb', nullable: true })
  syncState: SourceSyncState | null;

  @Column({ name: 'last_synced_at', type: 'timestamptz', nullable: true })
  lastSyncedAt: Date | null;

  @Column({ name: 'archived_at', type: 'timestamptz', nullable: true })
  archivedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
