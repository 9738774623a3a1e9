import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CredentialEnvelopeRepository } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * Credential envelopes on real PostgreSQL, for key maintenance across organizations: those of one key are
 * found by prefix, and a replacement never overwrites a value a concurrent writer changed.
 */
describe('CredentialEnvelopeRepository', () => {
  const database = useTestDatabase();
  let db: DataSource;
  let envelopes: CredentialEnvelopeRepository;
  const orgIds = [randomUUID(), randomUUID()];

  beforeAll(async () => {
    db = database.db;
    envelopes = new CredentialEnvelopeRepository(db);
    for (const id of orgIds) {
      await database.addOrganizations(id);
    }
  });

  async function connection(orgId: string, envelope: string | null): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO connections (id, org_id, name, kind, created_by, credentials_encrypted)
       VALUES ($1, $2, 'drive', 'googledrive', 'u1', $3)`,
      [id, orgId, envelope],
    );
    return id;
  }

  it('lists the envelopes of one key in every organization, and only those', async () => {
    const a = await connection(orgIds[0], 'v1:old:aaa');
    const b = await connection(orgIds[1], 'v1:old:bbb');
    await connection(orgIds[0], 'v1:new:ccc');
    await connection(orgIds[0], null);
    // A prefix is matched literally: LIKE wildcards in it match nothing else.
    await connection(orgIds[1], 'v1:oldX:ddd');
    const listed = await envelopes.listWithPrefix('v1:old:');
    expect(listed.sort((x, y) => x.envelope.localeCompare(y.envelope))).toEqual([
      { connectionId: a, envelope: 'v1:old:aaa' },
      { connectionId: b, envelope: 'v1:old:bbb' },
    ]);
    expect(await envelopes.listWithPrefix('v1:ol_:')).toEqual([]);
  });

  it('replaces an envelope that is still the one read, and keeps a newer one', async () => {
    const id = await connection(orgIds[0], 'v1:old:eee');
    expect(await envelopes.replace(id, 'v1:old:eee', 'v1:new:eee')).toBe(true);
    // Changed since it was read: not overwritten.
    expect(await envelopes.replace(id, 'v1:old:eee', 'v1:new:zzz')).toBe(false);
    const [row]: { credentials_encrypted: string }[] = await db.query(
      `SELECT credentials_encrypted FROM connections WHERE id = $1`,
      [id],
    );
    expect(row.credentials_encrypted).toBe('v1:new:eee');
    expect(await envelopes.replace(randomUUID(), 'v1:new:eee', 'x')).toBe(false);
  });
});
