import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, NotFoundError } from '@app/contracts';
import { McpCatalogueRepository, recordAudit } from '@app/persistence';

/**
 * `admin mcp:remove`: takes a server out of the catalogue. Agents that name it keep their item, but the server
 * no longer starts for them (its tools are not offered), and no agent may name it again.
 */
@Injectable()
export class RemoveMcpServer {
  constructor(
    private readonly db: DataSource,
    private readonly catalogue: McpCatalogueRepository,
  ) {}

  async execute(actor: AuditActor, name: string): Promise<{ name: string; removed: true }> {
    await this.db.transaction(async (tx) => {
      if (!(await this.catalogue.remove(name, tx)))
        throw new NotFoundError('MCP server not found in the catalogue');
      await recordAudit(tx, {
        orgId: null,
        actor,
        action: 'mcp_server.removed',
        target: { type: 'mcp_server', id: name },
      });
    });
    return { name, removed: true };
  }
}
