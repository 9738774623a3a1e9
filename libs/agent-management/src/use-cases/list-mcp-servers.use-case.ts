import { Injectable } from '@nestjs/common';
import { McpCatalogueEntryResponse } from '@app/contracts';
import { McpCatalogueRepository } from '@app/persistence';
import { toMcpCatalogueEntryResponse } from '../mcp-catalogue.mapper';

/** `admin mcp:list`: the catalogue by name, unconfirmed entries (from the migration) included. */
@Injectable()
export class ListMcpServers {
  constructor(private readonly catalogue: McpCatalogueRepository) {}

  async execute(): Promise<{ servers: McpCatalogueEntryResponse[] }> {
    return { servers: (await this.catalogue.list()).map(toMcpCatalogueEntryResponse) };
  }
}
