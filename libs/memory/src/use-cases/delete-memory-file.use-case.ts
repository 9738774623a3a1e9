import { Injectable } from '@nestjs/common';
import { MemoryFileRepository } from '@app/persistence';
import { MemoryCaller } from '../memory-caller';
import { MemoryFileAddress, memoryFileKey, memoryFileNotFound } from '../memory-file-address';

/** DELETE /memory/file. */
@Injectable()
export class DeleteMemoryFile {
  constructor(private readonly files: MemoryFileRepository) {}

  async execute(caller: MemoryCaller, address: MemoryFileAddress): Promise<void> {
    const deleted = await this.files.delete({ orgId: caller.orgId }, memoryFileKey(address));
    if (!deleted) throw memoryFileNotFound();
  }
}
