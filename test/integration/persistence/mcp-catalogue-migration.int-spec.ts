import { randomUUID } from 'node:crypto';
import { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { McpCatalogueRepository, MIGRATIONS } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * The upgrade to the catalogue (issue 28) on agents stored in the command form: each distinct command line
 * becomes one unconfirmed entry allowing the variables its agents had, the agents' items name it and keep their
 * sealed values, remote servers are untouched; down gives the commands back.
 */
describe('the MCP catalogue migration', () => {
  let runner: QueryRunner;
  // The migration's connection goes back before the database closes.
  afterAll(() => runner?.release());
  const database = useTestDatabase();
  let db: DataSource;
  let migration: MigrationInterface;
  const orgId = randomUUID();
  const [first, second, remoteOnly] = [randomUUID(), randomUUID(), randomUUID()];
  const git = { command: '/usr/bin/git-mcp', args: ['--stdio'] };

  beforeAll(async () => {
    db = database.db;
    runner = db.createQueryRunner();
    const Migration = MIGRATIONS.find((candidate) => candidate.name === 'McpCatalogue1765900000000')!;
    migration = new Migration();
    await migration.down(runner);
    await database.addOrganizations(orgId);
    const insert = (id: string, items: object[]) =>
      db.query(`INSERT INTO agents (id, org_id, name, mcp_servers) VALUES ($1, $2, 'a', $3)`, [
        id,
        orgId,
        JSON.stringify(items),
      ]);
    await insert(first, [
      { name: 'git', ...git, envNames: ['GIT_TOKEN'], sealed: 'sealed-1' },
      { name: 'web', url: 'https://93.184.216.34/mcp', headerNames: ['authorization'], sealed: 'sealed-2' },
    ]);
    await insert(second, [
      { name: 'repo', ...git, envNames: ['GIT_HOST'], sealed: 'sealed-3' },
      { name: 'shell', command: '/bin/sh' },
    ]);
    await insert(remoteOnly, [{ name: 'web', url: 'https://93.184.216.34/mcp' }]);
    await migration.up(runner);
  });

  const itemsOf = async (id: string) =>
    (await db.query(`SELECT mcp_servers FROM agents WHERE id = $1`, [id]))[0].mcp_servers;

  it('makes one unconfirmed entry per command line, allowing the variables of all its agents', async () => {
    const entries = await new McpCatalogueRepository(db).list();
    expect(
      entries.map(({ name, command, args, envAllow, confirmed }) => ({
        name,
        command,
        args,
        envAllow,
        confirmed,
      })),
    ).toEqual(
      expect.arrayContaining([
        {
          name: expect.stringMatching(/^migrated-[0-9a-f]{12}$/),
          ...git,
          envAllow: ['GIT_HOST', 'GIT_TOKEN'],
          confirmed: false,
        },
        {
          name: expect.stringMatching(/^migrated-[0-9a-f]{12}$/),
          command: '/bin/sh',
          args: [],
          envAllow: [],
          confirmed: false,
        },
      ]),
    );
    expect(entries).toHaveLength(2);
  });

  it('rewrites the agents to name their entry, keeping sealed values, and leaves remote servers alone', async () => {
    const entries = await new McpCatalogueRepository(db).list();
    const gitEntry = entries.find((entry) => entry.command === git.command)!.name;
    const shEntry = entries.find((entry) => entry.command === '/bin/sh')!.name;
    expect(await itemsOf(first)).toEqual([
      { name: 'git', server: gitEntry, envNames: ['GIT_TOKEN'], sealed: 'sealed-1' },
      { name: 'web', url: 'https://93.184.216.34/mcp', headerNames: ['authorization'], sealed: 'sealed-2' },
    ]);
    expect(await itemsOf(second)).toEqual([
      { name: 'repo', server: gitEntry, envNames: ['GIT_HOST'], sealed: 'sealed-3' },
      { name: 'shell', server: shEntry },
    ]);
    expect(await itemsOf(remoteOnly)).toEqual([{ name: 'web', url: 'https://93.184.216.34/mcp' }]);
  });

  it('gives the commands back on down, and moves them again on up under the same names', async () => {
    const before = (await new McpCatalogueRepository(db).list()).map((entry) => entry.name);
    await migration.down(runner);
    expect(await itemsOf(second)).toEqual([
      { name: 'repo', ...git, envNames: ['GIT_HOST'], sealed: 'sealed-3' },
      { name: 'shell', command: '/bin/sh', args: [] },
    ]);
    await migration.up(runner);
    expect((await new McpCatalogueRepository(db).list()).map((entry) => entry.name)).toEqual(before);
  });
});
