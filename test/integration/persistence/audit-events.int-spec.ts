import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuditEntry, AuditEventRepository, recordAudit } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * The audit log on real PostgreSQL: an entry commits or rolls back with the transaction it was written in, the
 * table refuses UPDATE, DELETE and TRUNCATE from anyone (not only from routes), and the listing merges the
 * organization's entries with the deployment-wide ones, newest first, page by page.
 */
describe('audit_events', () => {
  const database = useTestDatabase();
  let db: DataSource;
  let events: AuditEventRepository;
  const orgId = randomUUID();
  const otherOrgId = randomUUID();

  const entry = (org: string | null, targetId: string): AuditEntry => ({
    orgId: org,
    actor: { type: 'key', id: randomUUID() },
    action: org ? 'agent.created' : 'mcp_server.registered',
    target: { type: org ? 'agent' : 'mcp_server', id: targetId },
    details: { name: targetId },
  });

  const count = async (): Promise<number> =>
    Number((await db.query<{ n: string }[]>(`SELECT count(*) AS n FROM audit_events`))[0].n);

  beforeAll(() => {
    db = database.db;
    events = new AuditEventRepository(db);
  });

  it('keeps an entry only when the transaction it was written in commits', async () => {
    const before = await count();
    await expect(
      db.transaction(async (tx) => {
        await recordAudit(tx, entry(orgId, 'rolled-back'));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await count()).toBe(before);

    await db.transaction((tx) => recordAudit(tx, entry(orgId, 'committed')));
    expect(await count()).toBe(before + 1);
    const [listed] = await events.list(orgId, { limit: 1 });
    expect(listed).toMatchObject({
      action: 'agent.created',
      target: { type: 'agent', id: 'committed' },
      details: { name: 'committed' },
    });
    expect(listed.at).toBeInstanceOf(Date);
  });

  it('refuses UPDATE, DELETE and TRUNCATE of any entry', async () => {
    await db.transaction((tx) => recordAudit(tx, entry(orgId, 'kept')));
    const before = await count();
    await expect(db.query(`UPDATE audit_events SET action = 'key.created'`)).rejects.toThrow(
      /audit_events is append-only: UPDATE refused/,
    );
    await expect(db.query(`DELETE FROM audit_events WHERE org_id = $1`, [orgId])).rejects.toThrow(
      /audit_events is append-only: DELETE refused/,
    );
    await expect(db.query(`TRUNCATE audit_events`)).rejects.toThrow(
      /audit_events is append-only: TRUNCATE refused/,
    );
    expect(await count()).toBe(before);
    const kept = await db.query<{ action: string }[]>(
      `SELECT action FROM audit_events WHERE target_id = 'kept'`,
    );
    expect(kept).toEqual([{ action: 'agent.created' }]);
  });

  it("lists an organization's entries and the deployment-wide ones, newest first, in pages", async () => {
    const org = randomUUID();
    const written: string[] = [];
    // Interleaved, so a page must merge both kinds in id order.
    for (let i = 0; i < 7; i++) {
      const target = `t${i}`;
      await db.transaction((tx) => recordAudit(tx, entry(i % 3 === 0 ? null : org, target)));
      await db.transaction((tx) => recordAudit(tx, entry(otherOrgId, `other-${i}`)));
      written.push(target);
    }
    const everything = await events.list(org, { limit: 100 });
    // Another organization's entries are left out; the deployment-wide ones (t0, t3, t6) are listed to every one.
    expect(everything.map((event) => event.target.id)).toEqual([...written].reverse());
    const ids = everything.map((event) => event.id);
    expect([...ids].sort().reverse()).toEqual(ids);

    const paged: string[] = [];
    let beforeId: string | undefined;
    for (;;) {
      const page = await events.list(org, { beforeId, limit: 3 });
      paged.push(...page.map((event) => event.id));
      if (page.length < 3) break;
      beforeId = page[page.length - 1].id;
    }
    expect(paged).toEqual(ids);
  });
});
