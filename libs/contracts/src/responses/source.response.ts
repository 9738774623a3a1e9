import { ApiProperty } from '@nestjs/swagger';
import { DATE_TIME, FREE_FORM, isoOrNull } from './message.response';

/** API-SPEC 2.9's Connection: exactly these seven fields; credentials never leave the service. */
export class ConnectionResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'Team drive' })
  name: string;
  @ApiProperty({ description: 'active, expired or error.', example: 'active' })
  status: string;
  @ApiProperty({ description: 'The end user (user_id) who created it.' })
  created_by: string;
  @ApiProperty({
    ...DATE_TIME,
    nullable: true,
    description: 'When the credentials expire; null when unknown.',
  })
  expires_at: string | null;
  @ApiProperty({
    ...DATE_TIME,
    nullable: true,
    description: 'Last check of the credentials; null before any.',
  })
  checked_at: string | null;
  @ApiProperty({ description: 'True once the credentials no longer work.' })
  inoperative: boolean;
}

/** API-SPEC 2.9's Source, every field present; `status_reason` says why a source is in `error`. */
export class SourceResponse {
  @ApiProperty({ type: 'integer' })
  id: number;
  @ApiProperty({ description: 'Public id used in paths (source_pid).' })
  pid: string;
  @ApiProperty(DATE_TIME)
  created_at: string;
  @ApiProperty({ example: 'Handbook' })
  name: string;
  @ApiProperty({ enum: ['organization', 'private'] })
  scope: string;
  @ApiProperty({ description: 'The end user (user_id) who created it.' })
  created_by: string;
  @ApiProperty({ enum: ['googledrive', 'sharepoint', 'draganddrop'] })
  store: string;
  @ApiProperty({ description: 'pending (never synced), syncing, synced or error.', example: 'synced' })
  status: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why the source is in error; null otherwise.' })
  status_reason: string | null;
  @ApiProperty({ type: 'integer', description: 'Bytes of its documents.' })
  size: number;
  @ApiProperty({ type: 'integer', description: 'Bytes of its embedded documents.' })
  embedded_size: number;
  @ApiProperty({
    ...FREE_FORM,
    description:
      'By store: googledrive {folder_id, recursive?}; sharepoint {site_id, drive_id?, folder_path?}; draganddrop {}.',
  })
  config: Record<string, unknown>;
  @ApiProperty({ type: 'integer' })
  documents_synced: number;
  @ApiProperty({ type: 'integer' })
  documents_failed: number;
  @ApiProperty({ type: 'integer' })
  oversized_documents: number;
  @ApiProperty({ type: 'integer' })
  documents_embedded: number;
  @ApiProperty({ ...DATE_TIME, nullable: true })
  last_synced_at: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true })
  archived_at: string | null;
  @ApiProperty({ type: ConnectionResponse })
  connection: ConnectionResponse;
}

export class SourceDocumentResponse {
  @ApiProperty()
  id: string;
  @ApiProperty({ example: 'handbook.pdf' })
  name: string;
  @ApiProperty({ example: 'application/pdf' })
  mimetype: string;
  @ApiProperty({ type: 'integer', description: 'Bytes.' })
  size: number;
  @ApiProperty({ example: 'indexed' })
  status: string;
  @ApiProperty({ type: 'string', nullable: true })
  error: string | null;
  @ApiProperty({ type: 'integer', description: 'Passages indexed for search.' })
  passages: number;
  @ApiProperty()
  embedded: boolean;
  @ApiProperty({ ...DATE_TIME, nullable: true })
  synced_at: string | null;
}

/** The stored connection fields the response shows (the entity has them). */
interface ConnectionRecord {
  id: string;
  name: string;
  status: string;
  createdBy: string;
  expiresAt: Date | null;
  checkedAt: Date | null;
  inoperative: boolean;
}

/** The stored source fields the response shows. */
interface SourceRecord {
  id: number;
  pid: string;
  createdAt: Date;
  name: string;
  scope: string;
  createdBy: string;
  store: string;
  status: string;
  statusReason: string | null;
  size: number;
  embeddedSize: number;
  config: Record<string, unknown>;
  documentsSynced: number;
  documentsFailed: number;
  oversizedDocuments: number;
  documentsEmbedded: number;
  lastSyncedAt: Date | null;
  archivedAt: Date | null;
}

/** The stored document fields the response shows. */
interface SourceDocumentRecord {
  id: string;
  name: string;
  mimeType: string;
  size: number;
  status: string;
  error: string | null;
  passageCount: number;
  embedded: boolean;
  syncedAt: Date | null;
}

export function toConnectionResponse(connection: ConnectionRecord): ConnectionResponse {
  return {
    id: connection.id,
    name: connection.name,
    status: connection.status,
    created_by: connection.createdBy,
    expires_at: isoOrNull(connection.expiresAt),
    checked_at: isoOrNull(connection.checkedAt),
    inoperative: connection.inoperative,
  };
}

export function toSourceResponse(source: SourceRecord, connection: ConnectionRecord): SourceResponse {
  return {
    id: source.id,
    pid: source.pid,
    created_at: source.createdAt.toISOString(),
    name: source.name,
    scope: source.scope,
    created_by: source.createdBy,
    store: source.store,
    status: source.status,
    status_reason: source.statusReason,
    size: source.size,
    embedded_size: source.embeddedSize,
    config: source.config,
    documents_synced: source.documentsSynced,
    documents_failed: source.documentsFailed,
    oversized_documents: source.oversizedDocuments,
    documents_embedded: source.documentsEmbedded,
    last_synced_at: isoOrNull(source.lastSyncedAt),
    archived_at: isoOrNull(source.archivedAt),
    connection: toConnectionResponse(connection),
  };
}

export function toSourceDocumentResponse(document: SourceDocumentRecord): SourceDocumentResponse {
  return {
    id: document.id,
    name: document.name,
    mimetype: document.mimeType,
    size: document.size,
    status: document.status,
    error: document.error,
    passages: document.passageCount,
    embedded: document.embedded,
    synced_at: isoOrNull(document.syncedAt),
  };
}
