import { Module, OnModuleInit } from '@nestjs/common';
import { ToolRegistry, ToolRegistryModule } from '@app/agent';
import { DocumentsModule } from '@app/documents';
import {
  ConnectionRepository,
  CredentialCipherModule,
  DocumentRepository,
  PassageSearchRepository,
  SourceRepository,
} from '@app/persistence';
import { StorageModule } from '@app/storage';
import { ConnectionTokens } from './connections/connection-tokens';
import { Embedder } from './embeddings/embedder';
import { DocumentSearch } from './search/document-search';
import { StoreReaders } from './stores/store-readers';
import { SyncSource } from './sync/sync-source.use-case';
import { CompanyDocumentsToolSource } from './tools/company-documents.tool';

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

/** Registers `company_documents` with the process's ToolRegistry. */
@Module({
  imports: [KnowledgeModule, ToolRegistryModule],
  providers: [Embedder, PassageSearchRepository, DocumentSearch, CompanyDocumentsToolSource],
  exports: [DocumentSearch],
})
export class CompanyDocumentsToolModule implements OnModuleInit {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly source: CompanyDocumentsToolSource,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.source);
  }
}
