import { Module } from '@nestjs/common';
import { DocumentsModule } from '@app/documents';
import {
  ConnectionRepository,
  CredentialCipherModule,
  DocumentRepository,
  SourceRepository,
} from '@app/persistence';
import { StorageModule } from '@app/storage';
import { ConnectionTokens } from './connections/connection-tokens';
import { Embedder } from './embeddings/embedder';
import { StoreReaders } from './stores/store-readers';
import { SyncSource } from './sync/sync-source.use-case';

const SHARED = [ConnectionRepository, SourceRepository, DocumentRepository, ConnectionTokens];

/** Connections and sources for the gateway's /dc routes: repositories, credentials, token refresh. */
@Module({
  imports: [CredentialCipherModule],
  providers: SHARED,
  exports: [CredentialCipherModule, ...SHARED],
})
export class KnowledgeModule {}

/** Source syncs for the worker: reads stores (uploaded files through the storage driver) and extracts their text. */
@Module({
  imports: [KnowledgeModule, StorageModule, DocumentsModule],
  providers: [Embedder, StoreReaders, SyncSource],
  exports: [KnowledgeModule, SyncSource],
})
export class SourceSyncingModule {}
