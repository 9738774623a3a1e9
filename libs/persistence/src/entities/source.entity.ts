import { Entity, PrimaryGeneratedColumn } from 'typeorm';
import {
  BigintColumn,
  CreatedAtColumn,
  IntegerColumn,
  JsonbColumn,
  OrgIdColumn,
  TextColumn,
  TimestampColumn,
  UuidColumn,
} from './columns';

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

  @TextColumn({ unique: true })
  pid: string;

  @OrgIdColumn()
  orgId: string;

  @UuidColumn({ name: 'connection_id' })
  connectionId: string;

  @TextColumn()
  name: string;

  @TextColumn()
  scope: SourceScope;

  @TextColumn({ name: 'created_by' })
  createdBy: string;

  @TextColumn()
  store: SourceStore;

  @TextColumn({ default: 'pending' })
  status: SourceStatus;

  @TextColumn({ name: 'status_reason', nullable: true })
  statusReason: string | null;

  @JsonbColumn({ default: {} })
  config: Record<string, unknown>;

  /** Text search configuration of its passages (PostgreSQL regconfig name). */
  @TextColumn({ default: 'english' })
  language: string;

  @BigintColumn({ default: 0 })
  size: number;

  @BigintColumn({ name: 'embedded_size', default: 0 })
  embeddedSize: number;

  @IntegerColumn({ name: 'documents_synced', default: 0 })
  documentsSynced: number;

  @IntegerColumn({ name: 'documents_failed', default: 0 })
  documentsFailed: number;

  @IntegerColumn({ name: 'oversized_documents', default: 0 })
  oversizedDocuments: number;

  @IntegerColumn({ name: 'documents_embedded', default: 0 })
  documentsEmbedded: number;

  @JsonbColumn({ name: 'sync_state', nullable: true })
  syncState: SourceSyncState | null;

  @TimestampColumn({ name: 'last_synced_at', nullable: true })
  lastSyncedAt: Date | null;

  @TimestampColumn({ name: 'archived_at', nullable: true })
  archivedAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;
}
