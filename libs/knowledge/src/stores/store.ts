import { DocumentEntity, ListedDocument, SourceSyncState } from '@app/persistence';

/**
 * The connection's credentials no longer work (refresh refused, 401 after a refresh): it becomes inoperative,
 * with status `expired` when its token ran out and there is no refresh token, else `error`.
 */
export class ConnectionRefusedError extends Error {
  constructor(
    message: string,
    readonly status: 'expired' | 'error' = 'error',
  ) {
    super(message);
  }
}

/** Access tokens of one connection; `refreshed()` forces a refresh after the store answered 401. */
export interface TokenSource {
  current(): Promise<string>;
  refreshed(): Promise<string>;
}

/** Where a listing writes what it finds, page by page, so a killed listing has kept what it read. */
export interface ListingSink {
  upsert(items: ListedDocument[]): Promise<void>;
  remove(externalIds: string[]): Promise<void>;
}

/** Bytes of a document and the type they are in (a Google Doc arrives exported as text). */
export interface Downloaded {
  bytes: Buffer;
  mimeType: string;
}

/** One store (Drive, Graph, uploads) as a sync sees it. */
export interface StoreReader {
  /**
   * A full listing when `state.cursor` is null, else the changes since it. Answers the state with
   * `nextCursor`: where the next incremental sync starts.
   */
  list(state: SourceSyncState, sink: ListingSink): Promise<SourceSyncState>;
  /** The document's bytes, or null when they are more than `maxBytes` (not read further). */
  download(document: DocumentEntity, maxBytes: number): Promise<Downloaded | null>;
}
