import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { KnowledgeModule } from '@app/knowledge';
import { FileAttachmentsModule } from '@app/files';
import { ConnectionsController } from './connections.controller';
import { SourcePresenter } from './source.presenter';
import { SourcesController } from './sources.controller';
import {
  CheckConnection,
  CreateConnection,
  DeleteConnection,
  GetConnection,
  ListConnections,
} from './use-cases/connection.use-cases';
import {
  AddSourceDocuments,
  ArchiveSource,
  CreateSource,
  GetSource,
  ListSourceDocuments,
  ListSources,
  RequestSourceSync,
  UpdateSource,
} from './use-cases/source.use-cases';

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
