import { Injectable } from '@nestjs/common';
import {
  InvalidInputError,
  SourceDocumentResponse,
  toSourceDocumentResponse,
  valueErrorIssue,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { DocumentRepository, SourceRepository } from '@app/persistence';
import { SourceSyncQueue } from '@app/queues';
import { FileAttachments } from '@app/files';
import { AddDocumentsDto } from '../dto/source.dto';
import { visibleSource } from './source-rules';

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
    const source = await visibleSource(this.sources, caller, userId, pid, { live: true });
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
    return (await this.documents.listBySource(source))
      .filter((d) => added.has(d.externalId))
      .map(toSourceDocumentResponse);
  }
}
