import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SourceResponse, toSourceResponse } from '@app/contracts';
import { Settings } from '@app/config';
import { Caller } from '@app/identity';
import {
  ConnectionRepository,
  IdempotencyKeyRepository,
  IdempotentWrite,
  SourceRepository,
} from '@app/persistence';
import { SourceSyncQueue } from '@app/queues';
import { CreateSourceDto } from '../dto/source.dto';
import { parseStoreConfig } from '../store-config';
import { connectionFor, defaultName } from './source-rules';

/**
 * POST /dc/sources (spec 4.6): stored `pending` (with the answer, in one transaction, when the request holds an
 * Idempotency-Key), then a first sync queued and periodic ones scheduled. Failing those two after the commit would
 * invite a retry that stores the source twice, so a failure is logged and the source answered: the workers' sweep
 * queues the first sync of a source left `pending`, and their reconciliation installs its scheduler.
 */
@Injectable()
export class CreateSource {
  private readonly logger = new Logger(CreateSource.name);

  constructor(
    private readonly db: DataSource,
    private readonly settings: Settings,
    private readonly connections: ConnectionRepository,
    private readonly sources: SourceRepository,
    private readonly syncs: SourceSyncQueue,
    private readonly idempotencyKeys: IdempotencyKeyRepository,
  ) {}

  async execute(
    caller: Caller,
    userId: string,
    input: CreateSourceDto,
    idempotency?: IdempotentWrite,
  ): Promise<SourceResponse> {
    const { config, language } = parseStoreConfig(input.store, input.config);
    const connection = await connectionFor(
      this.connections,
      { orgId: caller.orgId, userId },
      input.connection_id,
      input.store,
    );
    const { source, response } = await this.db.transaction(async (tx) => {
      const source = await this.sources.create(
        { orgId: caller.orgId, userId },
        {
          connectionId: connection.id,
          name: input.name ?? defaultName(input.store, config),
          scope: input.scope,
          createdBy: userId,
          store: input.store,
          config,
          language,
        },
        tx,
      );
      const response = toSourceResponse(source, connection);
      if (idempotency) await this.idempotencyKeys.recordAnswer(tx, idempotency, response, { threadId: null });
      return { source, response };
    });
    if (source.store !== 'draganddrop') {
      try {
        await this.syncs.enqueue(source.id);
        await this.syncs.schedule(source.id, this.settings.sourceSyncIntervalSeconds);
      } catch (error) {
        this.logger.error(
          { err: error, sourceId: source.id },
          'source stored but its sync not queued; the sync sweep will queue it',
        );
      }
    }
    return response;
  }
}
