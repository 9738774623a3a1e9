import { Module, OnModuleInit } from '@nestjs/common';
import { ToolRegistry, ToolRegistryModule } from '@app/agent';
import { MemoryFilesModule } from '../memory-files.module';
import { MemoryToolSource } from './memory-tool-source';

/** Registers memory_list, memory_read and memory_write with the process's ToolRegistry. */
@Module({
  imports: [MemoryFilesModule, ToolRegistryModule],
  providers: [MemoryToolSource],
})
export class MemoryToolsModule implements OnModuleInit {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly source: MemoryToolSource,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.source);
  }
}
