import { Injectable } from '@nestjs/common';
import { MemoryFileResponse, NotFoundError, toMemoryFileResponse } from '@app/contracts';
import { MemoryFileRepository } from '@app/persistence';
import { MemoryCaller, requireNamespace } from '../memory-caller';

interface ReadMemoryFileInput {
  namespace?: string | null;
  path: string;
}

/** GET /memory/file (spec 4.5) and the memory_read tool. */
@Injectable()
export class ReadMemoryFile {
  constructor(private readonly files: MemoryFileRepository) {}

  async execute(caller: MemoryCaller, input: ReadMemoryFileInput): Promise<MemoryFileResponse> {
    const namespace = requireNamespace(input.namespace);
    const file = await this.files.find({ orgId: caller.orgId }, { namespace, path: input.path });
    if (!file) throw new NotFoundError('Memory file not found');
    return toMemoryFileResponse(file);
  }
}
