import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { McpCatalogueEntryEntity } from '../entities';
import { entityFromJson } from './entity-rows';
import { Db } from './scope';

type McpCatalogueRegistration = Pick<McpCatalogueEntryEntity, 'name' | 'command' | 'args' | 'envAllow'>;

/** The operator's catalogue of stdio MCP servers; deployment-wide, so no organization scope. */
@Injectable()
export class McpCatalogueRepository {
  constructor(private readonly db: DataSource) {}

  /** Adds the entry, or replaces the one of that name; either way it is confirmed and may start. */
  // crosses tenants: the catalogue of stdio MCP servers is the operator's (admin CLI), no organization's
  async register(
    entry: McpCatalogueRegistration,
    db: Db = this.db.manager,
  ): Promise<McpCatalogueEntryEntity> {
    const [row] = await db.query<{ entry: Record<string, unknown> }[]>(
      `INSERT INTO mcp_catalogue AS c (name, command, args, env_allow, confirmed)
       VALUES ($1, $2, $3, $4, true)
       ON CONFLICT (name) DO UPDATE
         SET command = EXCLUDED.command, args = EXCLUDED.args, env_allow = EXCLUDED.env_allow,
             confirmed = true, updated_at = now()
       RETURNING to_jsonb(c) AS entry`,
      [entry.name, entry.command, JSON.stringify(entry.args), JSON.stringify(entry.envAllow)],
    );
    return entityFromJson(this.db, McpCatalogueEntryEntity, row.entry);
  }

  // crosses tenants: the catalogue of stdio MCP servers is the operator's, no organization's
  list(): Promise<McpCatalogueEntryEntity[]> {
    return this.db.getRepository(McpCatalogueEntryEntity).find({ order: { name: 'ASC' } });
  }

  // crosses tenants: the catalogue of stdio MCP servers is the operator's, no organization's
  findByName(name: string): Promise<McpCatalogueEntryEntity | null> {
    return this.db.getRepository(McpCatalogueEntryEntity).findOneBy({ name });
  }

  // crosses tenants: the catalogue of stdio MCP servers is the operator's, no organization's
  async findByNames(names: string[]): Promise<Map<string, McpCatalogueEntryEntity>> {
    if (names.length === 0) return new Map();
    const entries = await this.db.getRepository(McpCatalogueEntryEntity).findBy({ name: In(names) });
    return new Map(entries.map((entry) => [entry.name, entry]));
  }

  /** False when there was no entry of that name. */
  // crosses tenants: the catalogue of stdio MCP servers is the operator's (admin CLI), no organization's
  async remove(name: string, db: Db = this.db.manager): Promise<boolean> {
    const result = await db.getRepository(McpCatalogueEntryEntity).delete({ name });
    return (result.affected ?? 0) > 0;
  }
}
