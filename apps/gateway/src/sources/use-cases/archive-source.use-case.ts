import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { SourceRepository } from '@app/persistence';
import { SourceSyncQueue } from '@app/queues';

/** DELETE /dc/sources/{pid}: archived, out of search, no more periodic syncs. */
@Injectable()
export class ArchiveSource {
  constructor(
    private readonly sources: SourceRepository,
    private readonly syncs: SourceSyncQueue,
  ) {}

  async execute(caller: Caller, userId: string | undefined, pid: string): Promise<void> {
    const scope = { orgId: caller.orgId, userId };
    const source = await this.sources.findLiveVisible(scope, pid);
    if (!source) throw new NotFoundError('Source not found');
    await this.sources.archive(scope, source.id);
    await this.syncs.unschedule(source.id);
  }
}
