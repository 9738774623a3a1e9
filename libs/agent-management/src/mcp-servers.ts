import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import {
  InvalidInputError,
  McpServerDto,
  McpServerResponse,
  ValidationIssue,
  valueErrorIssue,
} from '@app/contracts';
import { assertEgressUrl, EgressUrlError } from '@app/egress';
import {
  CredentialCipher,
  McpCatalogueEntryEntity,
  McpCatalogueRepository,
  McpServerConfig,
  McpServerSecrets,
} from '@app/persistence';

/**
 * Turns the `mcp` field into what is stored, after the checks that keep a tenant off the service's hosts
 * (CONTRACTS §15): a remote server's URL must be public (MCP_ALLOW_PRIVATE aside), a stdio server must be one of
 * the operator's catalogue and get only the variables its entry allows. `env` and `headers` values are sealed
 * with the credentials cipher (only their names stay readable); what is shown back never holds a value.
 */
@Injectable()
export class McpServers {
  constructor(
    private readonly cipher: CredentialCipher,
    private readonly catalogue: McpCatalogueRepository,
    private readonly settings: Settings,
  ) {}

  async seal(servers: McpServerDto[]): Promise<McpServerConfig[]> {
    const entries = await this.catalogue.findByNames(
      servers.flatMap((server) => (server.server ? [server.server] : [])),
    );
    const issues = (
      await Promise.all(servers.map((server, index) => this.issuesOf(server, index, servers, entries)))
    ).flat();
    if (issues.length > 0) throw new InvalidInputError(issues);
    return servers.map((server) => {
      const secrets: McpServerSecrets = {};
      if (server.env && Object.keys(server.env).length > 0) secrets.env = server.env;
      if (server.headers && Object.keys(server.headers).length > 0) secrets.headers = server.headers;
      const stored: McpServerConfig = { name: server.name };
      if (server.server) stored.server = server.server;
      if (server.url) stored.url = server.url;
      if (secrets.env) stored.envNames = Object.keys(secrets.env);
      if (secrets.headers) stored.headerNames = Object.keys(secrets.headers);
      if (secrets.env || secrets.headers) stored.sealed = this.cipher.encrypt(secrets);
      return stored;
    });
  }

  /**
   * What class-validator cannot say: one transport per server, secrets that fit it, a catalogued server and the
   * variables its entry allows, a URL the egress guard accepts, names given once.
   */
  private async issuesOf(
    server: McpServerDto,
    index: number,
    all: McpServerDto[],
    entries: Map<string, McpCatalogueEntryEntity>,
  ): Promise<ValidationIssue[]> {
    const issues: ValidationIssue[] = [];
    // Secrets are never echoed: an issue about env or headers shows their names only.
    const fail = (field: string | null, reason: string, input: unknown) =>
      issues.push(valueErrorIssue(['body', 'mcp', index, ...(field ? [field] : [])], input, reason));
    if (!server.server === !server.url)
      fail(null, 'give exactly one of server (a catalogued stdio server) or url (HTTP)', server.name);
    if (server.env && !server.server)
      fail('env', 'env belongs to a catalogued stdio server (server)', Object.keys(server.env));
    if (server.headers && !server.url)
      fail('headers', 'headers belong to an HTTP server (url)', Object.keys(server.headers));
    for (const field of ['env', 'headers'] as const) {
      const values = server[field];
      if (values && Object.values(values).some((value) => typeof value !== 'string')) {
        fail(field, 'every value must be a string', Object.keys(values));
      }
    }
    const entry = server.server ? entries.get(server.server) : undefined;
    if (server.server && !entry) fail('server', 'no MCP server of this name in the catalogue', server.server);
    const refused = Object.keys(server.env ?? {}).filter((name) => entry && !entry.envAllow.includes(name));
    if (entry && refused.length > 0) {
      const allowed = entry.envAllow.length > 0 ? entry.envAllow.join(', ') : 'none';
      fail('env', `${entry.name} allows only these variables: ${allowed}`, refused);
    }
    if (server.url) {
      const reason = await this.urlRefusal(server.url);
      if (reason) fail('url', reason, server.url);
    }
    if (all.findIndex((other) => other.name === server.name) !== index) {
      fail('name', 'another server has this name', server.name);
    }
    return issues;
  }

  /** Why a remote server's URL is refused, by the rule of the `web` tool and webhooks; null when it is not. */
  private async urlRefusal(url: string): Promise<string | null> {
    try {
      await assertEgressUrl(url, this.settings.mcpAllowPrivate);
      return null;
    } catch (error) {
      if (error instanceof EgressUrlError) return error.message;
      throw error;
    }
  }
}

export function toMcpServerResponse(server: McpServerConfig): McpServerResponse {
  const headerNames = server.headerNames ?? (server.headers ? Object.keys(server.headers) : undefined);
  return server.url
    ? { name: server.name, url: server.url, header_names: headerNames ?? [] }
    : { name: server.name, server: server.server, env_names: server.envNames ?? [] };
}
