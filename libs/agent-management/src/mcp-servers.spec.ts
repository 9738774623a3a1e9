import { randomBytes } from 'node:crypto';
import { Settings } from '@app/config';
import { InvalidInputError, McpServerDto, ValidationIssue } from '@app/contracts';
import {
  CredentialCipher,
  McpCatalogueEntryEntity,
  McpCatalogueRepository,
  McpServerSecrets,
} from '@app/persistence';
import { McpServers, toMcpServerResponse } from './mcp-servers';

const cipher = new CredentialCipher(randomBytes(32).toString('base64'));
const search = Object.assign(new McpCatalogueEntryEntity(), {
  name: 'search',
  command: 'search-server',
  args: [],
  envAllow: ['SEARCH_TOKEN'],
});
const catalogue = {
  findByNames: (names: string[]) =>
    Promise.resolve(new Map(names.includes('search') ? [['search', search]] : [])),
} as unknown as McpCatalogueRepository;
const servers = new McpServers(cipher, catalogue, { mcpAllowPrivate: false } as Settings);

/** The 422's issues for `mcp`, or a failure if it was accepted. */
async function refusal(mcp: McpServerDto[]): Promise<ValidationIssue[]> {
  const error: unknown = await servers.seal(mcp).then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof InvalidInputError)) throw new Error(`accepted: ${JSON.stringify(mcp)}`);
  return error.issues;
}

describe('McpServers', () => {
  it('seals the secrets of each server and keeps only their names readable', async () => {
    const [stdio, http] = await servers.seal([
      { name: 'docs', server: 'search', env: { SEARCH_TOKEN: 's3cret' } },
      { name: 'remote', url: 'https://93.184.216.34/mcp', headers: { Authorization: 'Bearer t0ken' } },
    ]);
    expect(stdio).toEqual({
      name: 'docs',
      server: 'search',
      envNames: ['SEARCH_TOKEN'],
      sealed: expect.any(String),
    });
    expect(JSON.stringify(stdio)).not.toContain('s3cret');
    expect(cipher.decrypt<McpServerSecrets>(stdio.sealed!)).toEqual({ env: { SEARCH_TOKEN: 's3cret' } });
    expect(JSON.stringify(http)).not.toContain('t0ken');
    expect(cipher.decrypt<McpServerSecrets>(http.sealed!)).toEqual({
      headers: { Authorization: 'Bearer t0ken' },
    });
    // What callers read back: names, never values.
    expect(toMcpServerResponse(http)).toEqual({
      name: 'remote',
      url: 'https://93.184.216.34/mcp',
      header_names: ['Authorization'],
    });
    expect(toMcpServerResponse(stdio)).toEqual({
      name: 'docs',
      server: 'search',
      env_names: ['SEARCH_TOKEN'],
    });
  });

  it('stores no envelope for a server without secrets', async () => {
    expect(await servers.seal([{ name: 'plain', server: 'search' }])).toEqual([
      { name: 'plain', server: 'search' },
    ]);
  });

  it('refuses a server with both transports, or neither', async () => {
    const issues = await refusal([
      { name: 'both', server: 'search', url: 'https://93.184.216.34/mcp' },
      { name: 'neither' },
    ]);
    expect(issues.map((issue) => issue.loc)).toEqual([
      ['body', 'mcp', 0],
      ['body', 'mcp', 1],
    ]);
  });

  it('refuses a stdio server that is not in the catalogue, and variables its entry does not allow', async () => {
    const issues = await refusal([
      { name: 'a', server: 'shell' },
      { name: 'b', server: 'search', env: { SEARCH_TOKEN: 'x', PATH: '/tmp' } },
    ]);
    expect(issues.map((issue) => [issue.loc.join('.'), issue.input])).toEqual([
      ['body.mcp.0.server', 'shell'],
      ['body.mcp.1.env', ['PATH']],
    ]);
    expect(issues[1].msg).toContain('search allows only these variables: SEARCH_TOKEN');
  });

  it('shows the names of refused secrets, never their values', async () => {
    const issues = await refusal([{ name: 'a', url: 'https://93.184.216.34/mcp', env: { TOKEN: 'v4lue' } }]);
    expect(issues.map((issue) => issue.loc.join('.'))).toEqual(['body.mcp.0.env']);
    expect(JSON.stringify(issues)).not.toContain('v4lue');
  });

  it('refuses a URL on a private address, and a name given twice', async () => {
    const issues = await refusal([
      { name: 'same', url: 'http://127.0.0.1:8080/mcp' },
      { name: 'same', server: 'search' },
    ]);
    expect(issues.map((issue) => issue.loc.join('.'))).toEqual(['body.mcp.0.url', 'body.mcp.1.name']);
  });
});
