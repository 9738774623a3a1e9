/** A catalogue entry as the admin CLI prints it (`mcp:register`, `mcp:list`). */
export interface McpCatalogueEntryResponse {
  name: string;
  command: string;
  args: string[];
  env_allow: string[];
  /** False for an entry the migration made from a tenant's command: it does not start until registered again. */
  confirmed: boolean;
  created_at: string;
  updated_at: string;
}
