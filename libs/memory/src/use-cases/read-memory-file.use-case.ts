import { Injectable } from '@nestjs/common';
import { MemoryFileResponse, toMemoryFileResponse } from '@app/contracts';
import { MemoryFileRepository } from '@app/persistence';
import { MemoryCaller } from '../memory-caller';
import { MemoryFileAddress, memoryFileKey, memoryFileNotFound } from '../memory-file-address';

/** GET /memory/file (spec 4.5) and the memory_read tool. */
@Injectable()
export class ReadMemoryFile {
  constructor(private readonly files: MemoryFileRepository) {}

  async execute(caller: MemoryCaller, address: MemoryFileAddress): Promise<MemoryFileResponse> {
    const file = await this.files.find({ orgId: caller.orgId }, memoryFileKey(address));
    if (!file) throw memoryFileNotFound();
    return toMemoryFileResponse(file);
  }
}
