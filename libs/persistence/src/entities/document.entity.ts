import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './column-types';

/** `pending`: listed, not indexed yet; `indexed`; `failed` (extraction or download); `oversized`. */
export type DocumentStatus = 'pending' | 'indexed' | 'failed' | 'oversized';

/** A document of a source: one file of the store, or one uploaded file (draganddrop). */
@Entity('documents')
export class DocumentEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'source_id', type: 'integer' })
  sourceId: number;

  @Column({ name: 'org_id', type: 'uuid' })
  orgId: string;

  /** The store's id of the file (Drive file id, Graph item id, uploaded file id). */
  @Column({ name: 'external_id', type: 'text' })
  externalId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'mime_type', type: 'text' })
  mimeType: string;

  /** Bytes of the file as the store reports it (or as downloaded). */
  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  size: number;

  /** The store's version (md5, eTag, modified time) last listed: fetched again while it differs from `version`. */
  @Column({ name: 'wanted_version', type: 'text' })
  wantedVersion: string;

  /** The version whose text is indexed (or that failed): null until first fetched. */
  @Column({ type: 'text', nullable: true })
  version: string | null;

  @Column({ type: 'text', default: 'pending' })
  status: DocumentStatus;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** Bytes of extracted text embedded (UTF-8). */
  @Column({ name: 'embedded_size', type: 'bigint', default: 0, transformer: bigintAsNumber })
  embeddedSize: number;

  @Column({ type: 'boolean', default: false })
  embedded: boolean;

  @Column({ name: 'passage_count', type: 'integer', default: 0 })
  passageCount: number;

  /** The full listing that last saw it (SourceSyncState.generation). */
  @Column({ name: 'seen_generation', type: 'integer', default: 0 })
  seenGeneration: number;

  /** Uploader of a draganddrop file. */
  @Column({ name: 'added_by', type: 'text', nullable: true })
  addedBy: string | null;

  @Column({ name: 'synced_at', type: 'timestamptz', nullable: true })
  syncedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
