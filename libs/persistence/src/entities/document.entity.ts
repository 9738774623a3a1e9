import { Entity } from 'typeorm';
import {
  BigintColumn,
  BooleanColumn,
  CreatedAtColumn,
  IdColumn,
  IntegerColumn,
  OrgIdColumn,
  TextColumn,
  TimestampColumn,
} from './columns';

/** `pending`: listed, not indexed yet; `indexed`; `failed` (extraction or download); `oversized`. */
export type DocumentStatus = 'pending' | 'indexed' | 'failed' | 'oversized';

/** A document of a source: one file of the store, or one uploaded file (draganddrop). */
@Entity('documents')
export class DocumentEntity {
  @IdColumn()
  id: string;

  @IntegerColumn({ name: 'source_id' })
  sourceId: number;

  @OrgIdColumn()
  orgId: string;

  /** The store's id of the file (Drive file id, Graph item id, uploaded file id). */
  @TextColumn({ name: 'external_id' })
  externalId: string;

  @TextColumn()
  name: string;

  @TextColumn({ name: 'mime_type' })
  mimeType: string;

  /** Bytes of the file as the store reports it (or as downloaded). */
  @BigintColumn({ default: 0 })
  size: number;

  /** The store's version (md5, eTag, modified time) last listed: fetched again while it differs from `version`. */
  @TextColumn({ name: 'wanted_version' })
  wantedVersion: string;

  /** The version whose text is indexed (or that failed): null until first fetched. */
  @TextColumn({ nullable: true })
  version: string | null;

  @TextColumn({ default: 'pending' })
  status: DocumentStatus;

  @TextColumn({ nullable: true })
  error: string | null;

  /** Bytes of extracted text embedded (UTF-8). */
  @BigintColumn({ name: 'embedded_size', default: 0 })
  embeddedSize: number;

  @BooleanColumn({ default: false })
  embedded: boolean;

  @IntegerColumn({ name: 'passage_count', default: 0 })
  passageCount: number;

  /** The full listing that last saw it (SourceSyncState.generation). */
  @IntegerColumn({ name: 'seen_generation', default: 0 })
  seenGeneration: number;

  /** Uploader of a draganddrop file. */
  @TextColumn({ name: 'added_by', nullable: true })
  addedBy: string | null;

  @TimestampColumn({ name: 'synced_at', nullable: true })
  syncedAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;
}
