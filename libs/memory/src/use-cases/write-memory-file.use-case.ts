import { Injectable } from '@nestjs/common';
import { MemoryFileResponse, toMemoryFileResponse, VersionConflictError } from '@app/contracts';
import { MemoryFileRepository } from '@app/persistence';
import { MemoryCaller } from '../memory-caller';
import { MemoryFileAddress, memoryFileKey, memoryFileNotFound } from '../memory-file-address';

interface WriteMemoryFileInput extends MemoryFileAddress {
  content: string;
  purpose: string;
  /** The version last read: absent or null creates the file. */
  version?: string | null;
  /** The end user of the agent run that writes (the memory_write tool); absent through the HTTP routes. */
  writtenByUserId?: string | null;
}

/**
 * PUT /memory/file and the memory_write tool: creates a file, or replaces one whose stored version is still the
 * one given. A stale version (or creating over an existing file) is a 409 and writes nothing.
 */
@Injectable()
export class WriteMemoryFile {
  constructor(private readonly files: MemoryFileRepository) {}

  async execute(caller: MemoryCaller, input: WriteMemoryFileInput): Promise<MemoryFileResponse> {
    const scope = { orgId: caller.orgId };
    const file = {
      ...memoryFileKey(input),
      content: input.content,
      purpose: input.purpose,
      ...(input.writtenByUserId === undefined ? {} : { writtenByUserId: input.writtenByUserId }),
    };
    if (input.version == null) {
      const created = await this.files.create(scope, file);
      if (!created) {
        throw new VersionConflictError('Memory file already exists; send its version to update it');
      }
      return toMemoryFileResponse(created);
    }
    const updated = await this.files.updateIfVersion(scope, file, input.version);
    if (updated) return toMemoryFileResponse(updated);
    if (!(await this.files.find(scope, file))) throw memoryFileNotFound();
    throw new VersionConflictError('Memory file has changed since that version; read it again');
  }
}
