import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Settings } from '@app/config';
import { SourceRepository } from '@app/persistence';
import { SourceSyncQueue } from '@app/queues';

/**
 * Installs each live source's job scheduler at start, so a changed SOURCE_SYNC_INTERVAL_SECONDS applies to
 * the sources made before it (upserting a scheduler is idempotent, whichever worker does it).
 */
@Injectable()
export class SourceSchedules implements OnApplicationBootstrap {
  constructor(
    private readonly settings: Settings,
    private readonly sources: SourceRepository,
    private readonly syncs: SourceSyncQueue,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const id of await this.sources.liveIds()) {
      await this.syncs.schedule(id, this.settings.sourceSyncIntervalSeconds);
    }
  }
}
