import { Injectable } from '@nestjs/common';
import { MemoryFileSummaryResponse, toMemoryFileSummaryResponse } from '@app/contracts';
import { MemoryFileRepository } from '@app/persistence';
import { MemoryCaller, requireNamespace } from '../memory-caller';

interface ListMemoryFilesInput {
  namespace?: string | null;
  /** Only the files of this folder; all of the namespace when absent. */
  folder?: string | null;
}

/** GET /memory/files and the memory_list tool: the files without content, ordered by path. */
@Injectable()
export class ListMemoryFiles {
  constructor(private readonly files: MemoryFileRepository) {}

  async execute(caller: MemoryCaller, input: ListMemoryFilesInput): Promise<MemoryFileSummaryResponse[]> {
    const namespace = requireNamespace(input.namespace);
    const files = await this.files.list({ orgId: caller.orgId }, namespace, input.folder ?? null);
    return files.map(toMemoryFileSummaryResponse);
  }
}
