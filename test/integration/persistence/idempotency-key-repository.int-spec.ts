import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { dataSourceOptions, IdempotencyKeyRepository } from '@app/persistence';
import { createTestEnvironment, TestEnvironment } from '../../support/test-environment';

/**
 * Idempotency keys on real PostgreSQL: one statement claims a key, so of concurrent duplicates one wins; a key
 * belongs to its organization; a finished answer is replayed, a stale claim or an expired key is taken again.
 */
describe('IdempotencyKeyRepository', () => {
  let environment: TestEnvironment;
  let db: DataSource;
  let keys: IdempotencyKeyRepository;
  const orgId = randomUUID();
  const otherOrgId = randomUUID();
  const window = { retentionMs: 60_000, leaseMs: 60_000 };
  const fingerprint = (char: string) => char.repeat(64);

  beforeAll(async () => {
    environment = await createTestEnvironment();
    db = await new DataSource(
      dataSourceOptions(loadSettings({ DATABASE_URL: environment.databaseUrl }), 4),
    ).initialize();
    keys = new IdempotencyKeyRepository(db);
    for (const id of [orgId, otherOrgId]) {
      await db.query(`INSERT INTO organizations (id, name) VALUES ($1, $2)`, [id, `org-${id}`]);
    }
  });

  afterAll(async () => {
    await db?.destroy();
    await environment?.dispose();
  });

  /** Moves a key's claim back in time, as if it had been made `ms` ago. */
  async function age(org: string, key: string, ms: number): Promise<void> {
    await db.query(
      `UPDATE idempotency_keys SET created_at = now() - make_interval(secs => $3::double precision / 1000)
       WHERE org_id = $1 AND key = $2`,
      [org, key, ms],
    );
  }

  it('lets one of concurrent duplicates claim a key; the others see it processing', async () => {
    const claims = await Promise.all(
      [1, 2, 3, 4].map(() => keys.claim(orgId, 'concurrent', fingerprint('a'), window)),
    );
    expect(claims.filter((claim) => claim.state === 'claimed')).toHaveLength(1);
    expect(claims.filter((claim) => claim.state === 'processing')).toEqual(
      Array(3).fill({ state: 'processing', fingerprint: fingerprint('a') }),
    );
  });

  it('replays a completed answer, and keeps the key space of each organization apart', async () => {
    expect(await keys.claim(orgId, 'done', fingerprint('b'), window)).toEqual({ state: 'claimed' });
    await keys.complete(orgId, 'done', 201, { id: 'x', nested: [1, 2] });
    expect(await keys.claim(orgId, 'done', fingerprint('c'), window)).toEqual({
      state: 'completed',
      fingerprint: fingerprint('b'),
      statusCode: 201,
      body: { id: 'x', nested: [1, 2] },
    });
    // The same key in another organization is a different key.
    expect(await keys.claim(otherOrgId, 'done', fingerprint('c'), window)).toEqual({ state: 'claimed' });
    await keys.complete(otherOrgId, 'done', 200, null);
    expect(await keys.claim(orgId, 'done', fingerprint('b'), window)).toMatchObject({ statusCode: 201 });
  });

  it('takes a claim past its lease, and a completed key past its retention, but not a live answer', async () => {
    await keys.claim(orgId, 'stale', fingerprint('d'), window);
    await age(orgId, 'stale', window.leaseMs + 1000);
    expect(await keys.claim(orgId, 'stale', fingerprint('e'), window)).toEqual({ state: 'claimed' });

    await keys.claim(orgId, 'answered', fingerprint('f'), { retentionMs: 3_600_000, leaseMs: 1000 });
    await keys.complete(orgId, 'answered', 200, { ok: true });
    await age(orgId, 'answered', 5000);
    // Past the lease but completed: still replayed.
    expect(
      await keys.claim(orgId, 'answered', fingerprint('g'), { retentionMs: 3_600_000, leaseMs: 1000 }),
    ).toMatchObject({ state: 'completed', fingerprint: fingerprint('f') });
    await age(orgId, 'answered', 3_600_000 + 1000);
    expect(
      await keys.claim(orgId, 'answered', fingerprint('g'), { retentionMs: 3_600_000, leaseMs: 1000 }),
    ).toEqual({ state: 'claimed' });
  });

  it('releases only an unfinished claim with the same fingerprint', async () => {
    await keys.claim(orgId, 'released', fingerprint('h'), window);
    await keys.release(orgId, 'released', fingerprint('i'));
    expect(await keys.claim(orgId, 'released', fingerprint('i'), window)).toMatchObject({
      state: 'processing',
    });
    await keys.release(otherOrgId, 'released', fingerprint('h'));
    expect(await keys.claim(orgId, 'released', fingerprint('i'), window)).toMatchObject({
      state: 'processing',
    });
    await keys.release(orgId, 'released', fingerprint('h'));
    expect(await keys.claim(orgId, 'released', fingerprint('i'), window)).toEqual({ state: 'claimed' });

    await keys.complete(orgId, 'released', 200, {});
    await keys.release(orgId, 'released', fingerprint('i'));
    expect(await keys.claim(orgId, 'released', fingerprint('j'), window)).toMatchObject({
      state: 'completed',
    });
  });

  it('purges only the keys past their retention, of every organization, and says how many', async () => {
    await keys.claim(orgId, 'old-1', fingerprint('k'), window);
    await keys.claim(otherOrgId, 'old-2', fingerprint('k'), window);
    await keys.claim(orgId, 'fresh', fingerprint('k'), window);
    await age(orgId, 'old-1', 10 * 60_000);
    await age(otherOrgId, 'old-2', 10 * 60_000);
    const before: { key: string }[] = await db.query(`SELECT key FROM idempotency_keys`);
    expect(await keys.purgeExpired(5 * 60_000)).toBe(2);
    const after: { key: string }[] = await db.query(`SELECT key FROM idempotency_keys`);
    expect(after.map((row) => row.key).sort()).toEqual(
      before
        .map((row) => row.key)
        .filter((key) => !key.startsWith('old-'))
        .sort(),
    );
  });
});
