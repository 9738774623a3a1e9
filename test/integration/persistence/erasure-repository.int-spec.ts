import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { endUserHash } from '@app/persistence';
import { ErasureRepository, UsageRepository } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * The erasure's statements on a real database: one running erasure per end user, counts added batch by batch,
 * the id in clear forgotten when done, and the usage rollup kept under the receipt's hash of the user so the
 * organization's sums stay exact while the user id is gone.
 */
describe('erasure repository', () => {
  const database = useTestDatabase(4);
  let db: DataSource;
  let erasures: ErasureRepository;
  let usage: UsageRepository;
  const orgId = randomUUID();
  const agentId = randomUUID();

  beforeAll(async () => {
    db = database.db;
    erasures = new ErasureRepository(db);
    usage = new UsageRepository(db);
    await db.query(`INSERT INTO organizations (id, name) VALUES ($1, 'erasure')`, [orgId]);
    await db.query(`INSERT INTO agents (id, org_id, name, model) VALUES ($1, $2, 'a', 'builtin')`, [
      agentId,
      orgId,
    ]);
  });

  it('keeps one running erasure per end user, counts batches and forgets the id when done', async () => {
    const hash = endUserHash(orgId, 'ann');
    const actor = { type: 'key' as const, id: 'key-1' };
    const [first, second] = await Promise.all([
      erasures.start(db.manager, orgId, hash, 'ann', actor),
      erasures.start(db.manager, orgId, hash, 'ann', actor),
    ]);
    expect(second.id).toBe(first.id);
    await erasures.addCounts(db.manager, first.id, { threads: 2, messages: 0 });
    await erasures.addCounts(db.manager, first.id, { threads: 1, files: 3 });
    const done = await erasures.finish(db.manager, first.id);
    expect(done).toMatchObject({
      status: 'done',
      userId: null,
      userHash: hash,
      counts: { threads: 3, files: 3 },
      requestedBy: actor,
    });
    expect(await erasures.finish(db.manager, first.id)).toBeNull();
    const next = await erasures.start(db.manager, orgId, hash, 'ann', actor);
    expect(next.id).not.toBe(first.id);
  });

  it("keeps the user's usage under the receipt's hash: the organization's sums stay exact", async () => {
    await db.query(
      `INSERT INTO usage_daily (org_id, day, user_id, agent_id, model, replies, input_tokens, output_tokens, tool_calls)
       VALUES ($1, '2026-11-01', 'bob', $2, 'builtin', 2, 20, 10, 1), ($1, '2026-11-01', NULL, $2, 'builtin', 1, 5, 5, 0),
         ($1, '2026-11-02', 'bob', $2, 'builtin', 1, 7, 3, 0), ($1, '2026-11-02', 'cat', $2, 'builtin', 4, 40, 9, 2)`,
      [orgId, agentId],
    );
    const sums = (groupBy?: 'user') => usage.sums({ orgId, from: '2026-11-01', to: '2026-11-30', groupBy });
    const before = await sums();
    const counts = await db.transaction((tx) => erasures.deleteRest(tx, orgId, 'bob'));
    expect(counts.usage_rows).toBe(2);
    expect(await sums()).toEqual(before);
    const byUser = (await sums('user')).map((row) => [row.key, row.replies]);
    expect(byUser).toHaveLength(3);
    expect(byUser).toEqual(
      expect.arrayContaining([
        ['cat', 4],
        [null, 1],
        [endUserHash(orgId, 'bob'), 3],
      ]),
    );
  });

  it('adds to the rows its hash already holds, shard by shard, and counts no agent tokens again', async () => {
    const hash = endUserHash(orgId, 'dee');
    await db.query(
      `INSERT INTO usage_daily (org_id, day, user_id, agent_id, model, shard, replies, input_tokens, output_tokens,
         tool_calls, cached_input_tokens)
       VALUES ($1, '2026-11-03', 'dee', $2, 'builtin', 3, 2, 20, 10, 1, 4),
         ($1, '2026-11-03', $3, $2, 'builtin', 3, 1, 5, 5, 0, 1),
         ($1, '2026-11-03', 'dee', $2, 'builtin', 5, 1, 3000000000, 2, 0, 0)`,
      [orgId, agentId, hash],
    );
    const pending = `SELECT count(*)::int AS n FROM token_usage_pending WHERE org_id = $1`;
    const [{ n: pendingBefore }] = await db.query(pending, [orgId]);
    const counts = await db.transaction((tx) => erasures.deleteRest(tx, orgId, 'dee'));
    expect(counts.usage_rows).toBe(2);
    const rows = await db.query(
      `SELECT shard, replies::int, input_tokens::text, output_tokens::int, tool_calls::int,
         cached_input_tokens::int FROM usage_daily WHERE org_id = $1 AND day = '2026-11-03' ORDER BY shard`,
      [orgId],
    );
    expect(rows).toEqual([
      { shard: 3, replies: 3, input_tokens: '25', output_tokens: 15, tool_calls: 1, cached_input_tokens: 5 },
      {
        shard: 5,
        replies: 1,
        input_tokens: '3000000000',
        output_tokens: 2,
        tool_calls: 0,
        cached_input_tokens: 0,
      },
    ]);
    expect((await db.query(pending, [orgId]))[0].n).toBe(pendingBefore);
  });
});
