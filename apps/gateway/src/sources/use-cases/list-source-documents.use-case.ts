import { Injectable } from '@nestjs/common';
import { NotFoundError, SourceDocumentResponse, toSourceDocumentResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { DocumentRepository, SourceRepository } from '@app/persistence';

@Injectable()
export class ListSourceDocuments {
  constructor(
    private readonly sources: SourceRepository,
    private readonly documents: DocumentRepository,
  ) {}

  async execute(caller: Caller, userId: string | undefined, pid: string): Promise<SourceDocumentResponse[]> {
    const source = await this.sources.findVisible({ orgId: caller.orgId, userId }, pid);
    if (!source) throw new NotFoundError('Source not found');
    return (await this.documents.listBySource(source)).map(toSourceDocumentResponse);
  }
}
