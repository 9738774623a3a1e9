import { Injectable } from '@nestjs/common';
import { SourceResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { ConnectionRepository, SourceRepository } from '@app/persistence';
import { SourceSyncQueue } from '@app/queues';
import { UpdateSourceDto } from '../dto/source.dto';
import { parseStoreConfig } from '../store-config';
import { SourcePresenter } from '../source.presenter';
import { connectionFor, connectionOwner, visibleSource } from './source-rules';

/** PUT /dc/sources/{pid}: a new connection or config starts over with a full sync. */
@Injectable()
export class UpdateSource {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly sources: SourceRepository,
    private readonly syncs: SourceSyncQueue,
    private readonly presenter: SourcePresenter,
  ) {}

  async execute(
    caller: Caller,
    userId: string | undefined,
    pid: string,
    input: UpdateSourceDto,
  ): Promise<SourceResponse> {
    const scope = { orgId: caller.orgId, userId };
    const source = await visibleSource(this.sources, caller, userId, pid, { live: true });
    const parsed = input.config ? parseStoreConfig(source.store, input.config) : null;
    const connection = input.connection_id
      ? await connectionFor(
          this.connections,
          { orgId: caller.orgId, userId: connectionOwner(userId) },
          input.connection_id,
          source.store,
        )
      : null;
    const relisted =
      (parsed && JSON.stringify(parsed.config) !== JSON.stringify(source.config)) ||
      (connection && connection.id !== source.connectionId);
    const updated = await this.sources.update(scope, source, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(parsed ? { config: parsed.config, language: parsed.language } : {}),
      ...(connection ? { connectionId: connection.id } : {}),
    });
    if (relisted) {
      await this.sources.resetSyncState(scope, source.id);
      if (source.store !== 'draganddrop') await this.syncs.enqueue(source.id);
    }
    return this.presenter.render(scope, updated);
  }
}
