import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ShareLinkRepository } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * Share links on real PostgreSQL: a link is revoked only through its own file, a second revoke keeps the first
 * time, and concurrent downloads each count while revoked or expired links count none.
 */
describe('ShareLinkRepository', () => {
  const database = useTestDatabase(4);
  let db: DataSource;
  let links: ShareLinkRepository;
  const orgId = randomUUID();
  const scope = { orgId };
  let fileId: string;
  let otherFileId: string;

  beforeAll(async () => {
    db = database.db;
    links = new ShareLinkRepository(db);
    await database.addOrganizations(orgId);
    [fileId, otherFileId] = [randomUUID(), randomUUID()];
    for (const id of [fileId, otherFileId]) {
      await db.query(
        `INSERT INTO conversation_files (id, org_id, user_id, name, mimetype, size, storage_key, origin, status)
         VALUES ($1, $2, 'alice', 'a.txt', 'text/plain', 1, $3, 'user', 'uploaded')`,
        [id, orgId, `uploads/${orgId}/${id}`],
      );
    }
  });

  it('creates a link with its expiry and password hash, counted from zero', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const link = await links.create(scope, fileId, { expiresAt, passwordHash: 'hash' });
    expect(link).toMatchObject({
      fileId,
      expiresAt,
      passwordHash: 'hash',
      revokedAt: null,
      accessCount: 0,
      lastAccessedAt: null,
    });
    expect(await links.findById(link.id)).toMatchObject({ id: link.id, accessCount: 0 });
  });

  it('revokes a link only through its own file, keeping the first revocation time', async () => {
    const link = await links.create(scope, fileId, { expiresAt: null, passwordHash: null });
    expect(await links.revoke(scope, otherFileId, link.id)).toBeNull();
    expect((await links.findById(link.id))?.revokedAt).toBeNull();
    const revoked = await links.revoke(scope, fileId, link.id);
    expect(revoked?.revokedAt).toBeInstanceOf(Date);
    const again = await links.revoke(scope, fileId, link.id);
    expect(again?.revokedAt?.getTime()).toBe(revoked?.revokedAt?.getTime());
  });

  it('counts every one of concurrent downloads, and none of a revoked or expired link', async () => {
    const link = await links.create(scope, fileId, { expiresAt: null, passwordHash: null });
    const counted = await Promise.all(Array.from({ length: 8 }, () => links.countAccess(link.id)));
    expect(counted.every((entity) => entity !== null)).toBe(true);
    const stored = await links.findById(link.id);
    expect(stored?.accessCount).toBe(8);
    expect(stored?.lastAccessedAt).toBeInstanceOf(Date);

    await links.revoke(scope, fileId, link.id);
    expect(await links.countAccess(link.id)).toBeNull();
    const expired = await links.create(scope, fileId, {
      expiresAt: new Date(Date.now() - 1000),
      passwordHash: null,
    });
    expect(await links.countAccess(expired.id)).toBeNull();
    expect((await links.findById(expired.id))?.accessCount).toBe(0);
    expect(await links.countAccess(randomUUID())).toBeNull();
  });
});
