import { Module, OnModuleInit } from '@nestjs/common';
import { ToolRegistry, ToolRegistryModule } from '@app/agent';
import { PassageSearchRepository } from '@app/persistence';
import { Embedder } from '../embeddings/embedder';
import { KnowledgeModule } from '../knowledge.module';
import { DocumentSearch } from '../search/document-search';
import { CompanyDocumentsToolSource } from './company-documents.tool';

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
