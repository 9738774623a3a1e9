/** An MCP server as it is shown back: the names of its environment variables and headers, never their values. */
export interface McpServerResponse {
  name: string;
  command?: string;
  args?: string[];
  env_names?: string[];
  url?: string;
  header_names?: string[];
}

/** An agent (CONTRACTS §15): the fields of POST /agents, flat, with its id; the admin CLI prints the same. */
export interface AgentResponse {
  id: string;
  organization_id: string;
  name: string;
  instructions: string;
  model: string;
  memory_namespace: string | null;
  token_budget: number | null;
  tokens_used: number;
  tools: string[] | null;
  mcp: McpServerResponse[];
  temperature: number | null;
  max_output_tokens: number | null;
  archived: boolean;
  created_at: string;
}
