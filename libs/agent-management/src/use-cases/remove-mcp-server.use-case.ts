import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/contracts';
import { McpCatalogueRepository } from '@app/persistence';

/**
 * `admin mcp:remove`: takes a server out of the catalogue. Agents that name it keep their item, but the server
 * no longer starts for them (its tools are not offered), and no agent may name it again.
 */
@Injectable()
export class RemoveMcpServer {
  constructor(private readonly catalogue: McpCatalogueRepository) {}

  async execute(name: string): Promise<{ name: string; removed: true }> {
    if (!(await this.catalogue.remove(name)))
      throw new NotFoundError('MCP server not found in the catalogue');
    return { name, removed: true };
  }
}
