import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A stdio MCP server the operator allows agents to run (CONTRACTS §15): registered with the admin CLI, named by
 * agents' `server`, deployment-wide. Agents choose only its name and the values of the variables it allows.
 */
@Entity('mcp_catalogue')
export class McpCatalogueEntryEntity {
  @PrimaryColumn({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  command: string;

  @Column({ type: 'jsonb', default: [] })
  args: string[];

  /** Environment variables an agent may give the server; any other is refused when the agent is saved. */
  @Column({ name: 'env_allow', type: 'jsonb', default: [] })
  envAllow: string[];

  /**
   * False for an entry the migration made from a command a tenant had stored: it never starts until the
   * operator registers it again under the same name.
   */
  @Column({ type: 'boolean' })
  confirmed: boolean;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
