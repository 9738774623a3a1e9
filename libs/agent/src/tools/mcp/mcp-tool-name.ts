import { createHash } from 'node:crypto';

/** Longest tool name OpenAI and Anthropic accept. */
const MAX_TOOL_NAME = 64;

/**
 * The name an MCP server's tool is offered under: `<server>__<tool>`, when that is made only of letters, digits,
 * `_` and `-` and fits in 64 characters; otherwise the offending characters become `_`, and a short hash of the
 * original name is appended (after truncating to fit), so two tools never end up with the same name.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${server}__${tool}`;
  if (name.length <= MAX_TOOL_NAME && /^[A-Za-z0-9_-]+$/.test(name)) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}
