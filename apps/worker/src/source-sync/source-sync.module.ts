import { DynamicModule, Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { SourceSyncingModule } from '@app/knowledge';
import { CompanyDocumentsToolModule } from '@app/knowledge/tools';
import { declareConsumer } from '../jobs/declare-consumer';
import { ScheduledSyncJobHandler } from './scheduled-sync.job-handler';
import { SourceSyncProcessor } from './source-sync.processor';
import { SweepForgottenSyncs } from './sweep-forgotten-syncs';
import { SyncSourceJobHandler } from './sync-source.job-handler';

/**
 * Data sources on this worker: the `source-sync` consumer, the sweep of forgotten syncs, and the
 * `company_documents` tool that searches what the syncs indexed (the periodic schedulers are SchedulersModule's).
 */
@Module({})
export class SourceSyncModule {
  static forRoot(settings: Settings): DynamicModule {
    declareConsumer(SourceSyncProcessor, QUEUE.sourceSync, settings, {
      concurrency: settings.sourceSyncConcurrency,
      maxStalledCount: 3,
    });
    return {
      module: SourceSyncModule,
      imports: [QueuesModule, SourceSyncingModule, CompanyDocumentsToolModule],
      providers: [SourceSyncProcessor, SyncSourceJobHandler, ScheduledSyncJobHandler, SweepForgottenSyncs],
    };
  }
}
