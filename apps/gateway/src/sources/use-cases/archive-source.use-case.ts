import { Injectable } from '@nestjs/common';
import { Caller } from '@app/identity';
import { SourceRepository } from '@app/persistence';
import { SourceSyncQueue } from '@app/queues';
import { visibleSource } from './source-rules';

/** DELETE /dc/sources/{pid}: archived, out of search, no more periodic syncs. */
@Injectable()
export class ArchiveSource {
  constructor(
    private readonly sources: SourceRepository,
    private readonly syncs: SourceSyncQueue,
  ) {}

  async execute(caller: Caller, userId: string | undefined, pid: string): Promise<void> {
    const scope = { orgId: caller.orgId, userId };
    const source = await visibleSource(this.sources, caller, userId, pid, { live: true });
    await this.sources.archive(scope, source.id);
    await this.syncs.unschedule(source.id);
  }
}
