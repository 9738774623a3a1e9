import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { KnowledgeModule } from '@app/knowledge';
import { FileAttachmentsModule } from '@app/files';
import { ConnectionsController } from './connections.controller';
import { SourcePresenter } from './source.presenter';
import { SourcesController } from './sources.controller';
import { CheckConnection } from './use-cases/check-connection.use-case';
import { CreateConnection } from './use-cases/create-connection.use-case';
import { DeleteConnection } from './use-cases/delete-connection.use-case';
import { GetConnection } from './use-cases/get-connection.use-case';
import { ListConnections } from './use-cases/list-connections.use-case';
import { AddSourceDocuments } from './use-cases/add-source-documents.use-case';
import { ArchiveSource } from './use-cases/archive-source.use-case';
import { CreateSource } from './use-cases/create-source.use-case';
import { GetSource } from './use-cases/get-source.use-case';
import { ListSourceDocuments } from './use-cases/list-source-documents.use-case';
import { ListSources } from './use-cases/list-sources.use-case';
import { RequestSourceSync } from './use-cases/request-source-sync.use-case';
import { UpdateSource } from './use-cases/update-source.use-case';

const USE_CASES = [
  CreateConnection,
  ListConnections,
  GetConnection,
  DeleteConnection,
  CheckConnection,
  CreateSource,
  UpdateSource,
  ListSources,
  GetSource,
  ArchiveSource,
  RequestSourceSync,
  ListSourceDocuments,
  AddSourceDocuments,
];

/** Connections and data sources; syncs run in the worker (`source-sync` queue). */
@Module({
  imports: [QueuesModule, KnowledgeModule, FileAttachmentsModule],
  controllers: [ConnectionsController, SourcesController],
  providers: [SourcePresenter, ...USE_CASES],
})
export class SourcesModule {}
