import { Module } from '@nestjs/common';
import { ToolRegistry } from './tool-registry';

/** The one ToolRegistry of a process: the runtime reads it, each capability's module registers its tools in it. */
@Module({
  providers: [ToolRegistry],
  exports: [ToolRegistry],
})
export class ToolRegistryModule {}
