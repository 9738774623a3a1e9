import { Injectable } from '@nestjs/common';
import { SourceResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { SourceRepository } from '@app/persistence';
import { SourceSyncQueue } from '@app/queues';
import { SourcePresenter } from '../source.presenter';
import { visibleSource } from './source-rules';

/** POST /dc/sources/{pid}/sync: queued unless a sync of it is already queued or running. */
@Injectable()
export class RequestSourceSync {
  constructor(
    private readonly sources: SourceRepository,
    private readonly syncs: SourceSyncQueue,
    private readonly presenter: SourcePresenter,
  ) {}

  async execute(caller: Caller, userId: string | undefined, pid: string): Promise<SourceResponse> {
    const scope = { orgId: caller.orgId, userId };
    const source = await visibleSource(this.sources, caller, userId, pid, { live: true });
    await this.syncs.enqueue(source.id);
    return this.presenter.render(scope, source);
  }
}
