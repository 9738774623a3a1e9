import { Injectable } from '@nestjs/common';
import { CredentialCipher } from '@app/crypto';
import { McpServerConfig, McpServerSecrets } from '@app/persistence';

/** An MCP server as the worker starts or calls it: its secrets opened. Held in memory only, never logged. */
export interface McpServerLaunch {
  name: string;
  command?: string;
  args: string[];
  url?: string;
  env: Record<string, string>;
  headers: Record<string, string>;
}

/** Opens the sealed `env` and `headers` of an agent's stored MCP server. */
@Injectable()
export class McpServerLaunches {
  constructor(private readonly cipher: CredentialCipher) {}

  launch(server: McpServerConfig): McpServerLaunch {
    const secrets: McpServerSecrets = server.sealed
      ? this.cipher.decrypt<McpServerSecrets>(server.sealed)
      : {};
    return {
      name: server.name,
      command: server.command,
      args: server.args ?? [],
      url: server.url,
      env: secrets.env ?? {},
      // Agents stored before secrets were sealed kept their header values in clear.
      headers: secrets.headers ?? server.headers ?? {},
    };
  }
}
