import { Injectable } from '@nestjs/common';
import { InvalidInputError, McpServerDto, McpServerResponse, ValidationIssue } from '@app/contracts';
import { CredentialCipher } from '@app/crypto';
import { McpServerConfig, McpServerSecrets } from '@app/persistence';

/**
 * Turns the `mcp` field into what is stored: `env` and `headers` values sealed with the credentials cipher
 * (only their names stay readable), and back into what is shown, which never holds a value.
 */
@Injectable()
export class McpServers {
  constructor(private readonly cipher: CredentialCipher) {}

  seal(servers: McpServerDto[]): McpServerConfig[] {
    const issues = servers.flatMap(shapeIssues);
    if (issues.length > 0) throw new InvalidInputError(issues);
    return servers.map((server) => {
      const secrets: McpServerSecrets = {};
      if (server.env && Object.keys(server.env).length > 0) secrets.env = server.env;
      if (server.headers && Object.keys(server.headers).length > 0) secrets.headers = server.headers;
      const stored: McpServerConfig = { name: server.name };
      if (server.command) Object.assign(stored, { command: server.command, args: server.args ?? [] });
      if (server.url) stored.url = server.url;
      if (secrets.env) stored.envNames = Object.keys(secrets.env);
      if (secrets.headers) stored.headerNames = Object.keys(secrets.headers);
      if (secrets.env || secrets.headers) stored.sealed = this.cipher.encrypt(secrets);
      return stored;
    });
  }
}

export function toMcpServerResponse(server: McpServerConfig): McpServerResponse {
  const headerNames = server.headerNames ?? (server.headers ? Object.keys(server.headers) : undefined);
  return server.url
    ? { name: server.name, url: server.url, header_names: headerNames ?? [] }
    : {
        name: server.name,
        command: server.command,
        args: server.args ?? [],
        env_names: server.envNames ?? [],
      };
}

/** What class-validator cannot say: one transport per server, secrets that fit it, names given once. */
function shapeIssues(server: McpServerDto, index: number, all: McpServerDto[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const fail = (field: string | null, msg: string, input: unknown) =>
    issues.push({
      loc: field ? ['body', 'mcp', index, field] : ['body', 'mcp', index],
      msg: `Value error, ${msg}`,
      type: 'value_error',
      input,
    });
  if (!server.command === !server.url)
    fail(null, 'give exactly one of command (stdio) or url (HTTP)', server.name);
  if (server.env && !server.command)
    fail('env', 'env belongs to a stdio server (command)', Object.keys(server.env));
  if (server.headers && !server.url)
    fail('headers', 'headers belong to an HTTP server (url)', Object.keys(server.headers));
  if (server.args && !server.command) fail('args', 'args belong to a stdio server (command)', server.args);
  if (server.url && !isHttpUrl(server.url)) fail('url', 'must be an http(s) URL', server.url);
  for (const field of ['env', 'headers'] as const) {
    const values = server[field];
    if (values && Object.values(values).some((value) => typeof value !== 'string')) {
      fail(field, 'every value must be a string', Object.keys(values));
    }
  }
  if (all.findIndex((other) => other.name === server.name) !== index) {
    fail('name', 'another server has this name', server.name);
  }
  return issues;
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}
