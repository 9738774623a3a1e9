import { Module, OnModuleInit } from '@nestjs/common';
import { DocumentsModule } from '@app/documents';
import { ToolRegistry } from '../tool-registry';
import { ToolRegistryModule } from '../tool-registry.module';
import { WebToolSource } from './web-tool';

/** Registers the `web` tool with the (global) agent runtime's ToolRegistry. */
@Module({ imports: [DocumentsModule, ToolRegistryModule], providers: [WebToolSource] })
export class WebToolModule implements OnModuleInit {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly source: WebToolSource,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.source);
  }
}
