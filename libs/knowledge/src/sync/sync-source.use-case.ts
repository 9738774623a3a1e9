import { Injectable, Logger } from '@nestjs/common';
import { Settings } from '@app/config';
import { toSourceResponse, webhookEvent } from '@app/contracts';
import { ExtractionError, extractDocumentText, UntrustedParsing } from '@app/documents';
import {
  ConnectionRepository,
  DocumentEntity,
  DocumentOutcome,
  DocumentRepository,
  SourceEntity,
  SourceRepository,
  SourceSyncState,
} from '@app/persistence';
import { ConnectionTokens } from '../connections/connection-tokens';
import { Embedder } from '../embeddings/embedder';
import { splitPassages } from '../passages';
import { ConnectionRefusedError, StoreReader } from '../stores/store';
import { StoreHttpError, StoreUnavailableError } from '../stores/store-http';
import { StoreReaders } from '../stores/store-readers';

/** A sync that failed for a reason worth another attempt soon (the store was down or throttling). */
class TransientSyncError extends Error {}

const INITIAL_STATE: SourceSyncState = {
  phase: 'idle',
  cursor: null,
  nextCursor: null,
  generation: 0,
  full: true,
};
/** Passages embedded per call. */
const EMBED_BATCH = 64;

/**
 * One sync of one source (the `source-sync` job): list the store (everything the first time, its changes
 * after), then fetch, extract, split, index and embed each new or changed document, and drop deleted ones.
 * Progress lives in PostgreSQL as it goes (the sync state and each document's processed version), so a sync
 * whose worker died resumes where it stopped; counters are recomputed from the documents, so they stay exact.
 */
@Injectable()
export class SyncSource {
  private readonly logger = new Logger(SyncSource.name);

  constructor(
    private readonly settings: Settings,
    private readonly sources: SourceRepository,
    private readonly documents: DocumentRepository,
    private readonly connections: ConnectionRepository,
    private readonly tokens: ConnectionTokens,
    private readonly readers: StoreReaders,
    private readonly embedder: Embedder,
    private readonly parsing: UntrustedParsing,
  ) {}

  async execute(sourceId: number): Promise<void> {
    const source = await this.sources.findById(sourceId);
    if (!source || source.archivedAt) return;
    // The worker holds the source by its job's id: its organization is the one the connection must be of.
    const scope = { orgId: source.orgId };
    const connection = await this.connections.findById(scope, source.connectionId);
    if (!connection) {
      await this.sources.setStatus(
        source.id,
        'error',
        'Connection "?" is inoperative: the connection is gone',
      );
      return;
    }
    const reported = (type: 'source.synced' | 'source.failed') => (ended: SourceEntity) =>
      webhookEvent(type, { ...toSourceResponse(ended, connection) });
    if (connection.inoperative) {
      const reason = `Connection "${connection.name}" is inoperative: ${connection.statusReason ?? 'unknown'}`;
      await this.sources.failSync(source.id, reason, reported('source.failed'));
      return;
    }
    await this.sources.setStatus(source.id, 'syncing');
    try {
      const reader = this.readers.for(source, connection);
      let state = source.syncState ?? INITIAL_STATE;
      if (state.phase === 'idle') {
        const full = state.cursor === null;
        state = { ...state, phase: 'listing', full, generation: state.generation + (full ? 1 : 0) };
        await this.sources.saveSyncState(source.id, state);
      }
      if (state.phase === 'listing') state = await this.list(source, reader, state);
      await this.fetchAll(source, reader);
      await this.sources.recount(source.id);
      await this.sources.finishSync(
        source.id,
        { ...state, phase: 'idle', cursor: state.nextCursor, nextCursor: null },
        reported('source.synced'),
      );
      this.logger.log({ sourceId }, 'source synced');
    } catch (error) {
      await this.sources.recount(source.id);
      if (error instanceof ConnectionRefusedError) {
        await this.tokens.markInoperative(scope, connection.id, error.message, error.status);
        return;
      }
      const reason = error instanceof Error ? error.message : String(error);
      await this.sources.failSync(source.id, `Sync failed: ${reason}`, reported('source.failed'));
      this.logger.warn({ sourceId, reason }, 'source sync failed');
      if (isTransient(error)) throw new TransientSyncError(reason);
    }
  }

  /** Reads the listing into the documents table page by page, then removes what is gone. */
  private async list(
    source: SourceEntity,
    reader: StoreReader,
    state: SourceSyncState,
  ): Promise<SourceSyncState> {
    const listed = await reader.list(state, {
      upsert: (items) => this.documents.upsertListed(source, items, state.generation),
      remove: async (ids) => void (await this.documents.deleteByExternalIds(source.id, ids)),
    });
    if (state.full && source.store !== 'draganddrop')
      await this.documents.deleteUnseen(source.id, state.generation);
    const next: SourceSyncState = { ...listed, phase: 'fetching' };
    await this.sources.saveSyncState(source.id, next);
    return next;
  }

  /** Processes every document whose listed version is not processed yet, a few at a time. */
  private async fetchAll(source: SourceEntity, reader: StoreReader): Promise<void> {
    const concurrency = this.settings.sourceSyncFetchConcurrency;
    for (;;) {
      const batch = await this.documents.toFetch(source.id, concurrency * 8);
      if (batch.length === 0) return;
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(concurrency, batch.length) }, async () => {
          while (next < batch.length) {
            const document = batch[next++];
            await this.documents.saveOutcome(document, source.language, await this.process(reader, document));
          }
        }),
      );
      await this.sources.recount(source.id);
    }
  }

  /** One document: bounded download, bounded extraction, passages, embeddings. */
  private async process(reader: StoreReader, document: DocumentEntity): Promise<DocumentOutcome> {
    const maxBytes = this.settings.documentMaxBytes;
    const skipped = (status: 'failed' | 'oversized', error: string | null): DocumentOutcome => ({
      status,
      error,
      size: document.size,
      embeddedSize: 0,
      embedded: false,
      passages: [],
    });
    if (document.size > maxBytes) return skipped('oversized', `larger than ${maxBytes} bytes`);
    let downloaded;
    try {
      downloaded = await reader.download(document, maxBytes);
    } catch (error) {
      // A missing or unreadable file fails alone; the store being down or refusing us stops the sync.
      if (
        error instanceof StoreHttpError &&
        error.status >= 400 &&
        error.status < 500 &&
        error.status !== 429
      ) {
        return skipped('failed', error.message);
      }
      throw error;
    }
    if (!downloaded) return skipped('oversized', `larger than ${maxBytes} bytes`);
    let text: string;
    try {
      text = await extractDocumentText(
        downloaded.bytes,
        downloaded.mimeType,
        document.name,
        this.settings.documentParseTimeoutMs,
        this.parsing,
      );
    } catch (error) {
      if (!(error instanceof ExtractionError)) throw error;
      return { ...skipped('failed', error.message), size: downloaded.bytes.length };
    }
    const passages = splitPassages(text);
    const embeddings = await this.embed(
      passages.map((passage) => passage.text),
      document,
    );
    return {
      status: 'indexed',
      error: null,
      size: downloaded.bytes.length,
      embedded: embeddings !== null,
      embeddedSize: embeddings
        ? passages.reduce((sum, passage) => sum + Buffer.byteLength(passage.text), 0)
        : 0,
      passages: passages.map((passage, index) => ({ ...passage, embedding: embeddings?.[index] ?? null })),
    };
  }

  /** Embeddings of the passages, or null when the embedder failed (the text is still searchable). */
  private async embed(texts: string[], document: DocumentEntity): Promise<number[][] | null> {
    try {
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += EMBED_BATCH) {
        vectors.push(...(await this.embedder.embed(texts.slice(start, start + EMBED_BATCH))));
      }
      return vectors;
    } catch (error) {
      this.logger.warn({ documentId: document.id, reason: (error as Error).message }, 'embedding failed');
      return null;
    }
  }
}

function isTransient(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  return error instanceof StoreHttpError && (error.status === 429 || error.status >= 500);
}
