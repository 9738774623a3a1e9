import { Injectable } from '@nestjs/common';
import {
  CredentialCipher,
  McpCatalogueRepository,
  McpServerConfig,
  McpServerSecrets,
} from '@app/persistence';

/** An MCP server as the worker starts or calls it: its secrets opened. Held in memory only, never logged. */
export interface McpServerLaunch {
  name: string;
  /** A catalogued stdio server: the operator's command line. */
  command?: string;
  args: string[];
  url?: string;
  env: Record<string, string>;
  headers: Record<string, string>;
}

/**
 * What the worker runs or reaches for an agent's stored MCP server: a remote URL as stored, or the command of the
 * operator's catalogue entry the agent names, read at each run so that a removed or changed entry takes effect
 * at once. An entry the migration made is not started until the operator confirms it. The sealed `env` and
 * `headers` are opened here; a stdio server gets only the variables its entry allows now.
 */
@Injectable()
export class McpServerLaunches {
  constructor(
    private readonly cipher: CredentialCipher,
    private readonly catalogue: McpCatalogueRepository,
  ) {}

  async launch(server: McpServerConfig): Promise<McpServerLaunch> {
    const secrets: McpServerSecrets = server.sealed
      ? this.cipher.decrypt<McpServerSecrets>(server.sealed)
      : {};
    if (server.url) {
      return {
        name: server.name,
        args: [],
        url: server.url,
        env: {},
        // Agents stored before secrets were sealed kept their header values in clear.
        headers: secrets.headers ?? server.headers ?? {},
      };
    }
    // McpToolSource turns a throw into a run offered none of the server's tools, and logs why.
    const entry = server.server ? await this.catalogue.findByName(server.server) : null;
    if (!entry) throw new Error(`${server.server ?? server.name} is not in the MCP catalogue`);
    if (!entry.confirmed) throw new Error(`${entry.name} awaits the operator's confirmation (mcp:register)`);
    const env = Object.fromEntries(
      Object.entries(secrets.env ?? {}).filter(([variable]) => entry.envAllow.includes(variable)),
    );
    return { name: server.name, command: entry.command, args: entry.args, env, headers: {} };
  }
}
