import { ConnectionEntity, DocumentEntity, SourceEntity } from '@app/persistence';

/** API-SPEC 2.9's Connection: exactly these seven fields; credentials never leave the service. */
export interface ConnectionResponse {
  id: string;
  name: string;
  status: string;
  created_by: string;
  expires_at: string | null;
  checked_at: string | null;
  inoperative: boolean;
}

/** API-SPEC 2.9's Source, every field present; `status_reason` says why a source is in `error`. */
export interface SourceResponse {
  id: number;
  pid: string;
  created_at: string;
  name: string;
  scope: string;
  created_by: string;
  store: string;
  status: string;
  status_reason: string | null;
  size: number;
  embedded_size: number;
  config: Record<string, unknown>;
  documents_synced: number;
  documents_failed: number;
  oversized_documents: number;
  documents_embedded: number;
  last_synced_at: string | null;
  archived_at: string | null;
  connection: ConnectionResponse;
}

export interface SourceDocumentResponse {
  id: string;
  name: string;
  mimetype: string;
  size: number;
  status: string;
  error: string | null;
  passages: number;
  embedded: boolean;
  synced_at: string | null;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function toConnectionResponse(connection: ConnectionEntity): ConnectionResponse {
  return {
    id: connection.id,
    name: connection.name,
    status: connection.status,
    created_by: connection.createdBy,
    expires_at: iso(connection.expiresAt),
    checked_at: iso(connection.checkedAt),
    inoperative: connection.inoperative,
  };
}

export function toSourceResponse(source: SourceEntity, connection: ConnectionEntity): SourceResponse {
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
    last_synced_at: iso(source.lastSyncedAt),
    archived_at: iso(source.archivedAt),
    connection: toConnectionResponse(connection),
  };
}

export function toSourceDocumentResponse(document: DocumentEntity): SourceDocumentResponse {
  return {
    id: document.id,
    name: document.name,
    mimetype: document.mimeType,
    size: document.size,
    status: document.status,
    error: document.error,
    passages: document.passageCount,
    embedded: document.embedded,
    synced_at: iso(document.syncedAt),
  };
}
