import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/contracts';
import { MemoryFileRepository } from '@app/persistence';
import { MemoryCaller, requireNamespace } from '../memory-caller';

interface DeleteMemoryFileInput {
  namespace?: string | null;
  path: string;
}

/** DELETE /memory/file. */
@Injectable()
export class DeleteMemoryFile {
  constructor(private readonly files: MemoryFileRepository) {}

  async execute(caller: MemoryCaller, input: DeleteMemoryFileInput): Promise<void> {
    const namespace = requireNamespace(input.namespace);
    const deleted = await this.files.delete({ orgId: caller.orgId }, { namespace, path: input.path });
    if (!deleted) throw new NotFoundError('Memory file not found');
  }
}
