import { Injectable } from '@nestjs/common';
import { SourceDocumentResponse, toSourceDocumentResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { DocumentRepository, SourceRepository } from '@app/persistence';
import { visibleSource } from './source-rules';

@Injectable()
export class ListSourceDocuments {
  constructor(
    private readonly sources: SourceRepository,
    private readonly documents: DocumentRepository,
  ) {}

  async execute(caller: Caller, userId: string | undefined, pid: string): Promise<SourceDocumentResponse[]> {
    const source = await visibleSource(this.sources, caller, userId, pid, { live: false });
    return (await this.documents.listBySource(source)).map(toSourceDocumentResponse);
  }
}
