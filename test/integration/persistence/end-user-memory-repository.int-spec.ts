import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  EndUserMemoryNamespaceRepository,
  ErasureRepository,
  MemoryFileRepository,
  UserExportRepository,
} from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * What erasure and export of an end user find in memory (CONTRACTS §21): the files their runs wrote and every
 * file of a namespace granted to their tokens, in their organization only.
 */
describe('memory files of an end user', () => {
  const database = useTestDatabase();
  let db: DataSource;
  let files: MemoryFileRepository;
  let grants: EndUserMemoryNamespaceRepository;
  let erasure: ErasureRepository;
  let exports: UserExportRepository;
  const orgId = randomUUID();
  const otherOrgId = randomUUID();
  const alice = { orgId, userId: 'alice' };

  const write = (org: string, namespace: string, path: string, writtenByUserId?: string | null) =>
    files.create({ orgId: org }, { namespace, path, content: path, purpose: 'p', writtenByUserId });
  /** A run of `writtenByUserId` writing `content` over the shared file `path` at `version`. */
  const rewriteShared = (path: string, content: string, writtenByUserId: string, version: string) =>
    files.updateIfVersion(
      { orgId },
      { namespace: 'shared', path, content, purpose: 'p', writtenByUserId },
      version,
    );

  const paths = async () =>
    (await exports.exportMemoryFiles(orgId, 'alice', null, 100))
      .map((file) => `${file.namespace}/${file.path}`)
      .sort();
  const granted = async (userId: string): Promise<string[]> =>
    (
      await db.query(
        `SELECT namespace FROM end_user_memory_namespaces WHERE org_id = $1 AND user_id = $2 ORDER BY namespace`,
        [orgId, userId],
      )
    ).map((row: { namespace: string }) => row.namespace);

  beforeAll(async () => {
    db = database.db;
    files = new MemoryFileRepository(db);
    grants = new EndUserMemoryNamespaceRepository(db);
    erasure = new ErasureRepository(db);
    exports = new UserExportRepository(db);
    await database.addOrganizations(orgId, otherOrgId);
    await write(orgId, 'shared', 'by-alice.md', 'alice');
    await write(orgId, 'shared', 'by-bob.md', 'bob');
    await write(orgId, 'shared', 'by-key.md');
    await write(orgId, 'alice-notes', 'a.md', 'bob');
    await write(orgId, 'alice-notes', 'b.md');
    await write(otherOrgId, 'alice-notes', 'a.md', 'alice');
    await write(otherOrgId, 'shared', 'x.md', 'alice');
    await grants.grant(alice, ['alice-notes', 'alice-notes']);
    await grants.grant({ orgId: otherOrgId, userId: 'bob' }, ['shared']);
  });

  it('records each granted namespace once, per organization and user', async () => {
    expect(await granted('alice')).toEqual(['alice-notes']);
    expect(await granted('bob')).toEqual([]);
  });

  it("lists the files the user's runs wrote and those of namespaces granted to them, in their organization", async () => {
    expect(await paths()).toEqual(['alice-notes/a.md', 'alice-notes/b.md', 'shared/by-alice.md']);
  });

  it('keeps the writers a file had when the HTTP routes update it, and adds a new run writer to them', async () => {
    const [byAlice] = await db.query(
      `SELECT version FROM memory_files WHERE org_id = $1 AND path = 'by-alice.md'`,
      [orgId],
    );
    const updated = await files.updateIfVersion(
      { orgId },
      { namespace: 'shared', path: 'by-alice.md', content: 'by key', purpose: 'p' },
      byAlice.version,
    );
    expect(updated?.writtenByUserIds).toEqual(['alice']);
    const byBob = await files.find({ orgId }, { namespace: 'shared', path: 'by-bob.md' });
    const rewritten = await rewriteShared('by-bob.md', 'now alice', 'alice', byBob!.version);
    expect(rewritten?.writtenByUserIds).toEqual(['bob', 'alice']);
    expect(await paths()).toContain('shared/by-bob.md');
    // Written by alice's run, then by bob's: the file may still hold what alice wrote, so it stays hers too.
    const first = await write(orgId, 'shared', 'alice-then-bob.md', 'alice');
    const second = await rewriteShared('alice-then-bob.md', 'bob', 'bob', first!.version);
    expect(second?.writtenByUserIds).toEqual(['alice', 'bob']);
    expect(await paths()).toContain('shared/alice-then-bob.md');
  });

  it("deletes exactly those, leaving other users' files and other organizations alone", async () => {
    expect(await erasure.deleteMemoryFiles(db.manager, orgId, 'alice', 100)).toEqual({ memory_files: 5 });
    expect(await paths()).toEqual([]);
    const left: { org_id: string; path: string }[] = await db.query(
      `SELECT org_id, namespace || '/' || path AS path FROM memory_files ORDER BY org_id = $1 DESC, path`,
      [orgId],
    );
    expect(left).toEqual([
      { org_id: orgId, path: 'shared/by-key.md' },
      { org_id: otherOrgId, path: 'alice-notes/a.md' },
      { org_id: otherOrgId, path: 'shared/x.md' },
    ]);
    expect(await erasure.deleteMemoryNamespaces(db.manager, orgId, 'alice')).toEqual({
      memory_namespaces: 1,
    });
    expect(await granted('alice')).toEqual([]);
  });
});
