import { InvalidInputError, NotFoundError } from '@app/contracts';
import { ACTOR, MemoryAgents } from '../testing/memory-agents';
import { RegisterMcpServer } from './register-mcp-server.use-case';
import { RemoveMcpServer } from './remove-mcp-server.use-case';

function world() {
  const store = new MemoryAgents();
  return {
    store,
    register: new RegisterMcpServer(store.db, store.catalogueRepository),
    remove: new RemoveMcpServer(store.db, store.catalogueRepository),
  };
}

describe('RegisterMcpServer', () => {
  it('adds a confirmed entry, each allowed variable once, with a deployment-wide audit entry', async () => {
    const { store, register } = world();

    const entry = await register.execute(ACTOR, {
      name: 'search',
      command: 'search-server',
      env_allow: ['SEARCH_TOKEN', 'SEARCH_REGION', 'SEARCH_TOKEN'],
    });

    expect(entry).toMatchObject({
      name: 'search',
      command: 'search-server',
      args: [],
      env_allow: ['SEARCH_TOKEN', 'SEARCH_REGION'],
      confirmed: true,
    });
    expect(store.catalogue.get('search')!.envAllow).toEqual(['SEARCH_TOKEN', 'SEARCH_REGION']);
    // The command and its arguments are the operator's: the log every organization sees does not show them.
    expect(store.audits).toEqual([
      {
        orgId: null,
        action: 'mcp_server.registered',
        target: 'mcp_server search',
        details: { env_allow: ['SEARCH_TOKEN', 'SEARCH_REGION'] },
      },
    ]);
  });

  it('refuses variables that decide what the server loads or runs, each at its index, and registers nothing', async () => {
    const { store, register } = world();

    const error: unknown = await register
      .execute(ACTOR, {
        name: 'search',
        command: 'search-server',
        env_allow: ['SEARCH_TOKEN', 'NODE_OPTIONS', 'LD_PRELOAD', 'PATHS', 'DYLD_INSERT_LIBRARIES'],
      })
      .catch((caught) => caught);

    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues.map((issue) => [issue.loc, issue.input])).toEqual([
      [['body', 'env_allow', 1], 'NODE_OPTIONS'],
      [['body', 'env_allow', 2], 'LD_PRELOAD'],
      [['body', 'env_allow', 4], 'DYLD_INSERT_LIBRARIES'],
    ]);
    expect(store.catalogue.size).toBe(0);
    expect(store.audits).toEqual([]);
  });
});

describe('RemoveMcpServer', () => {
  it('takes the entry out of the catalogue, with a deployment-wide audit entry', async () => {
    const { store, register, remove } = world();
    await register.execute(ACTOR, { name: 'search', command: 'search-server' });

    expect(await remove.execute(ACTOR, 'search')).toEqual({ name: 'search', removed: true });
    expect(store.catalogue.has('search')).toBe(false);
    expect(store.audits.map((audit) => [audit.orgId, audit.action, audit.target])).toEqual([
      [null, 'mcp_server.registered', 'mcp_server search'],
      [null, 'mcp_server.removed', 'mcp_server search'],
    ]);
  });

  it('answers 404 for a name the catalogue does not hold, and records nothing', async () => {
    const { store, remove } = world();

    await expect(remove.execute(ACTOR, 'search')).rejects.toThrow(
      new NotFoundError('MCP server not found in the catalogue'),
    );
    expect(store.audits).toEqual([]);
  });
});
