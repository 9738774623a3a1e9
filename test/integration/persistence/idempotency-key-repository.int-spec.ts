import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { IdempotencyKeyRepository, IdempotentWrite } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * Idempotency keys on real PostgreSQL: one statement claims a key, so of concurrent duplicates one wins; a key
 * belongs to its organization and end user; a finished answer is replayed, a stale claim or an expired key is
 * taken again.
 */
describe('IdempotencyKeyRepository', () => {
  const database = useTestDatabase(4);
  let db: DataSource;
  let keys: IdempotencyKeyRepository;
  const orgId = randomUUID();
  const otherOrgId = randomUUID();
  const window = { retentionMs: 60_000, leaseMs: 60_000 };
  const fingerprint = (char: string) => char.repeat(64);
  const ALICE = 'alice';

  beforeAll(async () => {
    db = database.db;
    keys = new IdempotencyKeyRepository(db);
    await database.addOrganizations(orgId, otherOrgId);
  });

  /** Claims a key, expecting to get it: the write a route would record its answer with. */
  async function claimed(
    org: string,
    key: string,
    print: string,
    claimWindow = window,
  ): Promise<IdempotentWrite> {
    const claim = await keys.claim(org, ALICE, key, print, claimWindow);
    if (claim.state !== 'claimed') throw new Error(`${key} not claimed: ${claim.state}`);
    return new IdempotentWrite(org, ALICE, key, claim.token, 200);
  }

  /** Records an answer the way a route does: in its own transaction. */
  const answer = (write: IdempotentWrite, body: unknown) =>
    db.transaction((tx) => keys.recordAnswer(tx, write, body, { threadId: null }));

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
      [1, 2, 3, 4].map(() => keys.claim(orgId, ALICE, 'concurrent', fingerprint('a'), window)),
    );
    expect(claims.filter((claim) => claim.state === 'claimed')).toEqual([
      { state: 'claimed', token: expect.any(String) },
    ]);
    expect(claims.filter((claim) => claim.state === 'processing')).toEqual(
      Array(3).fill({ state: 'processing', fingerprint: fingerprint('a') }),
    );
  });

  it('replays a recorded answer, and keeps the key space of each organization apart', async () => {
    const write = await claimed(orgId, 'done', fingerprint('b'));
    await answer(new IdempotentWrite(orgId, ALICE, 'done', write.token, 201), { id: 'x', nested: [1, 2] });
    expect(await keys.claim(orgId, ALICE, 'done', fingerprint('c'), window)).toEqual({
      state: 'completed',
      fingerprint: fingerprint('b'),
      statusCode: 201,
      body: { id: 'x', nested: [1, 2] },
    });
    // The same key in another organization is a different key.
    await answer(await claimed(otherOrgId, 'done', fingerprint('c')), null);
    expect(await keys.claim(orgId, ALICE, 'done', fingerprint('b'), window)).toMatchObject({
      statusCode: 201,
    });
  });

  it("keeps each end user's key space apart: another user's same key is a key of their own", async () => {
    await answer(await claimed(orgId, 'mine', fingerprint('n')), { thread: 'of alice' });
    expect(await keys.claim(orgId, 'bob', 'mine', fingerprint('n'), window)).toMatchObject({
      state: 'claimed',
    });
    expect(await keys.claim(orgId, '', 'mine', fingerprint('n'), window)).toMatchObject({ state: 'claimed' });
    expect(await keys.claim(orgId, ALICE, 'mine', fingerprint('n'), window)).toMatchObject({
      body: { thread: 'of alice' },
    });
  });

  it('takes a claim past its lease, and a completed key past its retention, but not a live answer', async () => {
    await claimed(orgId, 'stale', fingerprint('d'));
    await age(orgId, 'stale', window.leaseMs + 1000);
    expect(await keys.claim(orgId, ALICE, 'stale', fingerprint('e'), window)).toMatchObject({
      state: 'claimed',
    });

    const shortLease = { retentionMs: 3_600_000, leaseMs: 1000 };
    await answer(await claimed(orgId, 'answered', fingerprint('f'), shortLease), { ok: true });
    await age(orgId, 'answered', 5000);
    // Past the lease but completed: still replayed.
    expect(await keys.claim(orgId, ALICE, 'answered', fingerprint('g'), shortLease)).toMatchObject({
      state: 'completed',
      fingerprint: fingerprint('f'),
    });
    await age(orgId, 'answered', 3_600_000 + 1000);
    expect(await keys.claim(orgId, ALICE, 'answered', fingerprint('g'), shortLease)).toMatchObject({
      state: 'claimed',
    });
  });

  it('records an answer only with the transaction that stores the effect, and only for the current claim', async () => {
    // The route's transaction rolls back after recording: no answer, the key may be released and run again.
    const rolledBack = await claimed(orgId, 'rolled-back', fingerprint('l'));
    await expect(
      db.transaction(async (tx) => {
        await keys.recordAnswer(tx, rolledBack, { id: 'never' }, { threadId: null });
        throw new Error('the route failed before its commit');
      }),
    ).rejects.toThrow('the route failed');
    await keys.release(rolledBack);
    expect(await keys.claim(orgId, ALICE, 'rolled-back', fingerprint('l'), window)).toMatchObject({
      state: 'claimed',
    });

    // A request that outlived its lease, its key taken over, cannot record (409): the newer claim stores.
    const outlived = await claimed(orgId, 'taken-over', fingerprint('m'));
    await age(orgId, 'taken-over', window.leaseMs + 1000);
    const current = await claimed(orgId, 'taken-over', fingerprint('m'));
    await expect(answer(outlived, { by: 'outlived' })).rejects.toThrow('still being processed');
    await answer(current, { by: 'current' });
    expect(await keys.claim(orgId, ALICE, 'taken-over', fingerprint('m'), window)).toMatchObject({
      body: { by: 'current' },
    });
  });

  it('releases only its own unfinished claim, never a recorded answer', async () => {
    const first = await claimed(orgId, 'released', fingerprint('h'));
    await keys.release(
      new IdempotentWrite(orgId, ALICE, 'released', '00000000-0000-4000-8000-000000000000', 200),
    );
    expect(await keys.claim(orgId, ALICE, 'released', fingerprint('h'), window)).toMatchObject({
      state: 'processing',
    });
    await keys.release(new IdempotentWrite(otherOrgId, ALICE, 'released', first.token, 200));
    expect(await keys.claim(orgId, ALICE, 'released', fingerprint('h'), window)).toMatchObject({
      state: 'processing',
    });
    await keys.release(first);
    const second = await claimed(orgId, 'released', fingerprint('i'));

    await answer(second, {});
    await keys.release(second);
    expect(await keys.claim(orgId, ALICE, 'released', fingerprint('j'), window)).toMatchObject({
      state: 'completed',
    });
  });

  it('purges only the keys past their retention, of every organization, and says how many', async () => {
    await claimed(orgId, 'old-1', fingerprint('k'));
    await claimed(otherOrgId, 'old-2', fingerprint('k'));
    await claimed(orgId, 'fresh', fingerprint('k'));
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
