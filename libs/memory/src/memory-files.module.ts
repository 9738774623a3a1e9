import { Module } from '@nestjs/common';
import { DeleteMemoryFile } from './use-cases/delete-memory-file.use-case';
import { ListMemoryFiles } from './use-cases/list-memory-files.use-case';
import { ReadMemoryFile } from './use-cases/read-memory-file.use-case';
import { WriteMemoryFile } from './use-cases/write-memory-file.use-case';

const USE_CASES = [ReadMemoryFile, WriteMemoryFile, ListMemoryFiles, DeleteMemoryFile];

/** The memory use cases, for the gateway's /memory routes and the worker's memory tools. */
@Module({
  providers: USE_CASES,
  exports: USE_CASES,
})
export class MemoryFilesModule {}
