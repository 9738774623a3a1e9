import { Entity, PrimaryColumn } from 'typeorm';
import { BooleanColumn, CreatedAtColumn, JsonbColumn, TextColumn, UpdatedAtColumn } from './columns';

/**
 * A stdio MCP server the operator allows agents to run (CONTRACTS §15): registered with the admin CLI, named by
 * agents' `server`, deployment-wide. Agents choose only its name and the values of the variables it allows.
 */
@Entity('mcp_catalogue')
export class McpCatalogueEntryEntity {
  @PrimaryColumn({ type: 'text' })
  name: string;

  @TextColumn()
  command: string;

  @JsonbColumn({ default: [] })
  args: string[];

  /** Environment variables an agent may give the server; any other is refused when the agent is saved. */
  @JsonbColumn({ name: 'env_allow', default: [] })
  envAllow: string[];

  /**
   * False for an entry the migration made from a command a tenant had stored: it never starts until the
   * operator registers it again under the same name.
   */
  @BooleanColumn()
  confirmed: boolean;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
