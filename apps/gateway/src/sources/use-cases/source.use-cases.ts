import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  InvalidInputError,
  NotFoundError,
  pydanticIssue,
  SourceDocumentResponse,
  SourceResponse,
  toSourceDocumentResponse,
  toSourceResponse,
  valueErrorIssue,
  isRowId,
} from '@app/contracts';
import { Settings } from '@app/config';
import { Caller } from '@app/identity';
import {
  ConnectionEntity,
  ConnectionRepository,
  DocumentRepository,
  IdempotencyKeyRepository,
  IdempotentWrite,
  SourceRepository,
} from '@app/persistence';
import { SourceSyncQueue } from '@app/queues';
import { FileAttachments } from '@app/files';
import { Store } from '../dto/connection.dto';
import { AddDocumentsDto, CreateSourceDto, UpdateSourceDto } from '../dto/source.dto';
import { parseStoreConfig } from '../store-config';
import { SourcePresenter } from '../source.presenter';

/**
 * A connection of the end user `userId` for `store`: 404 when there is none or it is another user's (a source
 * reads a store through its connection's token, so only the connection's owner builds sources on it), 422 for
 * another kind. An organization-scoped source on it is the owner's explicit choice (`scope` is required).
 */
async function connectionFor(
  connections: ConnectionRepository,
  owner: { orgId: string; userId: string },
  id: string,
  store: Store,
): Promise<ConnectionEntity> {
  const connection = isRowId(id) ? await connections.findVisible(owner, id) : null;
  if (!connection) throw new NotFoundError('Connection not found');
  if (connection.kind !== store) {
    throw new InvalidInputError([
      valueErrorIssue(
        ['body', 'connection_id'],
        id,
        `the connection is for ${connection.kind}, not ${store}`,
      ),
    ]);
  }
  return connection;
}

/** Who moves a source to another connection: that connection's owner, so the end user must be named (422). */
function connectionOwner(userId: string | undefined): string {
  if (!userId) {
    throw new InvalidInputError([pydanticIssue('missing', ['query', 'user_id'], null)]);
  }
  return userId;
}

function defaultName(store: Store, config: Record<string, unknown>): string {
  if (store === 'googledrive') return `Google Drive folder ${String(config.folder_id)}`;
  if (store === 'sharepoint')
    return `SharePoint ${[config.site_id, config.folder_path].filter(Boolean).join(' ')}`;
  return 'Uploaded documents';
}

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
      if (idempotency) await this.idempotencyKeys.recordAnswer(tx, idempotency, response);
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
    const source = await this.sources.findLiveVisible({ orgId: caller.orgId, userId }, pid);
    if (!source) throw new NotFoundError('Source not found');
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
    const updated = await this.sources.update(source, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(parsed ? { config: parsed.config, language: parsed.language } : {}),
      ...(connection ? { connectionId: connection.id } : {}),
    });
    if (relisted) {
      await this.sources.resetSyncState(source.id);
      if (source.store !== 'draganddrop') await this.syncs.enqueue(source.id);
    }
    return this.presenter.render(updated);
  }
}

/** GET /dc/sources: newest first; private ones only for their creator. */
@Injectable()
export class ListSources {
  constructor(
    private readonly sources: SourceRepository,
    private readonly presenter: SourcePresenter,
  ) {}

  async execute(caller: Caller, userId: string | undefined): Promise<SourceResponse[]> {
    return this.presenter.renderMany(await this.sources.listVisible({ orgId: caller.orgId, userId }));
  }
}

@Injectable()
export class GetSource {
  constructor(
    private readonly sources: SourceRepository,
    private readonly presenter: SourcePresenter,
  ) {}

  async execute(caller: Caller, userId: string | undefined, pid: string): Promise<SourceResponse> {
    const source = await this.sources.findVisible({ orgId: caller.orgId, userId }, pid);
    if (!source) throw new NotFoundError('Source not found');
    return this.presenter.render(source);
  }
}

/** DELETE /dc/sources/{pid}: archived, out of search, no more periodic syncs. */
@Injectable()
export class ArchiveSource {
  constructor(
    private readonly sources: SourceRepository,
    private readonly syncs: SourceSyncQueue,
  ) {}

  async execute(caller: Caller, userId: string | undefined, pid: string): Promise<void> {
    const source = await this.sources.findLiveVisible({ orgId: caller.orgId, userId }, pid);
    if (!source) throw new NotFoundError('Source not found');
    await this.sources.archive(source.id);
    await this.syncs.unschedule(source.id);
  }
}

/** POST /dc/sources/{pid}/sync: queued unless a sync of it is already queued or running. */
@Injectable()
export class RequestSourceSync {
  constructor(
    private readonly sources: SourceRepository,
    private readonly syncs: SourceSyncQueue,
    private readonly presenter: SourcePresenter,
  ) {}

  async execute(caller: Caller, userId: string | undefined, pid: string): Promise<SourceResponse> {
    const source = await this.sources.findLiveVisible({ orgId: caller.orgId, userId }, pid);
    if (!source) throw new NotFoundError('Source not found');
    await this.syncs.enqueue(source.id);
    return this.presenter.render(source);
  }
}

@Injectable()
export class ListSourceDocuments {
  constructor(
    private readonly sources: SourceRepository,
    private readonly documents: DocumentRepository,
  ) {}

  async execute(caller: Caller, userId: string | undefined, pid: string): Promise<SourceDocumentResponse[]> {
    const source = await this.sources.findVisible({ orgId: caller.orgId, userId }, pid);
    if (!source) throw new NotFoundError('Source not found');
    return (await this.documents.listBySource(source.id)).map(toSourceDocumentResponse);
  }
}

/** POST /dc/sources/{pid}/documents (draganddrop): uploaded files of the caller become documents, then a sync. */
@Injectable()
export class AddSourceDocuments {
  constructor(
    private readonly sources: SourceRepository,
    private readonly documents: DocumentRepository,
    private readonly files: FileAttachments,
    private readonly syncs: SourceSyncQueue,
  ) {}

  async execute(
    caller: Caller,
    userId: string,
    pid: string,
    input: AddDocumentsDto,
  ): Promise<SourceDocumentResponse[]> {
    const source = await this.sources.findLiveVisible({ orgId: caller.orgId, userId }, pid);
    if (!source) throw new NotFoundError('Source not found');
    if (source.store !== 'draganddrop') {
      throw new InvalidInputError([
        valueErrorIssue(
          ['path', 'source_pid'],
          pid,
          `documents are added to draganddrop sources only, this one is ${source.store}`,
        ),
      ]);
    }
    const files = await this.files.requireUploaded({ orgId: caller.orgId, userId }, input.file_ids, [
      'body',
      'file_ids',
    ]);
    await this.documents.upsertListed(
      source,
      // An uploaded file never changes: its id is its version.
      files.map((file) => ({
        externalId: file.id,
        name: file.name,
        mimeType: file.mimetype,
        size: file.size,
        version: file.id,
        addedBy: userId,
      })),
      source.syncState?.generation ?? 0,
    );
    await this.syncs.enqueue(source.id);
    const added = new Set(files.map((file) => file.id));
    return (await this.documents.listBySource(source.id))
      .filter((d) => added.has(d.externalId))
      .map(toSourceDocumentResponse);
  }
}
