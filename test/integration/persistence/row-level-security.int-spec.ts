import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { loadSettings } from '@app/config';
import {
  dataSourceOptions,
  MessageRepository,
  preparedStatement,
  QueryTemplateRepository,
  runPreparedAsTenant,
  Scope,
  ThreadRepository,
  withTenant,
} from '@app/persistence';
import { PgBouncer } from '../../support/pgbouncer';
import { storedThread as storedThreadOf } from './stored-thread';
import { useTestDatabase } from '../../support/test-database';

/**
 * The second wall (CONTRACTS §21): a transaction opened for one organization sees and changes none of another's
 * rows, whatever its statements ask for, and a tenant transaction that names no organization sees nothing.
 */
describe('row-level security', () => {
  const database = useTestDatabase(3);
  let db: DataSource;
  let threads: ThreadRepository;
  let messages: MessageRepository;
  let templates: QueryTemplateRepository;
  const [orgA, orgB] = [randomUUID(), randomUUID()];
  const alice: Scope = { orgId: orgA, userId: 'alice' };

  /** Tables that hold an organization's data: every one of them must have row-level security on. */
  const tenantTables = async (): Promise<string[]> =>
    (
      await db.query(
        `SELECT DISTINCT c.table_name FROM information_schema.columns c
           JOIN information_schema.tables t USING (table_schema, table_name)
         WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
           AND c.column_name IN ('org_id', 'message_id', 'thread_id', 'webhook_id', 'file_id', 'document_id')
         ORDER BY 1`,
      )
    ).map((row: { table_name: string }) => row.table_name);

  beforeAll(async () => {
    db = database.db;
    threads = new ThreadRepository(db);
    messages = new MessageRepository(db);
    templates = new QueryTemplateRepository(db);
    await database.addOrganizations(orgA, orgB);
  });

  const storedThread = (scope: Scope) => storedThreadOf(db, scope);

  const asTenant = <T>(orgId: string, work: (tx: EntityManager) => Promise<T>) =>
    withTenant(db, { orgId }, work);

  it('has row-level security on every table that holds an organization’s data', async () => {
    const withoutPolicy: { relname: string }[] = await db.query(
      `SELECT c.relname FROM pg_class c
       WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1) AND NOT (c.relrowsecurity
         AND EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid))`,
      [[...(await tenantTables()), 'organizations', 'skills']],
    );
    expect(withoutPolicy.map((row) => row.relname)).toEqual([]);
  });

  it("runs the repositories' queries under another organization's setting and sees no row", async () => {
    const { thread, reply } = await storedThread(alice);
    const template = await templates.create(alice, {
      name: 'n',
      description: '',
      content: 'c',
      metadata: {},
      iconUri: '',
      iconColor: '',
      backgroundColor: '',
      scope: 'organization',
      createdBy: 'alice',
    });
    // The organization's own transaction finds them: the wall is not in the way of the right scope.
    await asTenant(orgA, async (tx) => {
      expect((await threads.findVisible(alice, thread.id, tx))?.id).toBe(thread.id);
      expect((await templates.findVisible(alice, template.id, tx))?.id).toBe(template.id);
    });
    // The same statements, with alice's ids and alice's scope, in organization B's transaction: nothing.
    await asTenant(orgB, async (tx) => {
      expect(await threads.findVisible(alice, thread.id, tx)).toBeNull();
      expect(await threads.lockVisible(tx, alice, thread.id)).toBeNull();
      expect(await threads.listForUser({ orgId: orgA, userId: 'alice' }, { limit: 10 }, tx)).toEqual([]);
      expect(await templates.findVisible(alice, template.id, tx)).toBeNull();
      expect(await messages.findById(reply.id, tx)).toBeNull();
      // A statement that forgets its WHERE altogether sees B's rows only, in every table.
      for (const table of await tenantTables()) {
        const column = table === 'organizations' ? 'id' : 'org_id';
        const hasOrg: unknown[] = await tx.query(
          `SELECT 1 FROM information_schema.columns WHERE table_name = $1 AND column_name = $2`,
          [table, column],
        );
        if (hasOrg.length === 0) continue;
        const foreign: unknown[] = await tx.query(`SELECT 1 FROM ${table} WHERE ${column} <> $1`, [orgB]);
        expect({ table, rows: foreign.length }).toEqual({ table, rows: 0 });
      }
      const childRows: { n: number }[] = await tx.query(
        `SELECT (SELECT count(*) FROM messages)::int + (SELECT count(*) FROM run_steps)::int AS n`,
      );
      expect(childRows[0].n).toBe(0);
    });
  });

  it('refuses to write a row of another organization, and changes none of its rows', async () => {
    const { thread } = await storedThread(alice);
    await expect(
      asTenant(orgB, (tx) =>
        tx.query(
          `INSERT INTO query_templates (id, org_id, name, content, scope, created_by, updated_by)
                  VALUES ($1, $2, 'x', 'y', 'organization', 'm', 'm')`,
          [randomUUID(), orgA],
        ),
      ),
    ).rejects.toThrow(/row-level security/);
    const changed = await asTenant(orgB, (tx) =>
      tx.query(`UPDATE threads SET name = 'taken' WHERE id = $1`, [thread.id]),
    );
    expect(changed[1]).toBe(0);
    expect((await threads.findVisible(alice, thread.id))?.name).toBe('t');
  });

  it('sees nothing in a tenant transaction that names no organization', async () => {
    await storedThread(alice);
    const rows: { n: number }[] = await db.transaction(async (tx) => {
      await tx.query(`SELECT set_config('role', 'parley_tenant', true)`);
      return tx.query(`SELECT (SELECT count(*) FROM threads)::int + (SELECT count(*) FROM agents)::int AS n`);
    });
    expect(rows[0].n).toBe(0);
  });

  /** A statement that forgets its organization: only the wall keeps it to one. */
  const threadById = preparedStatement({
    name: 'rls_spec_thread_by_id',
    text: `SELECT id FROM threads WHERE id = $1`,
  });
  /** Who the next statement on a connection runs as, and for which organization. */
  const sessionState = preparedStatement({
    name: 'rls_spec_session_state',
    text: `SELECT current_user AS "user", coalesce(current_setting('parley.org_id', true), '') AS org`,
  });

  it('runs a hot statement under the wall in its own round trip, and leaves nothing on the connection', async () => {
    const { thread, reply } = await storedThread(alice);
    // One connection: what a statement left behind, the next one would see.
    const single = await new DataSource(
      dataSourceOptions(loadSettings({ DATABASE_URL: database.environment.databaseUrl }), 1),
    ).initialize();
    try {
      for (let round = 0; round < 3; round++) {
        expect(await runPreparedAsTenant(single, { orgId: orgB }, threadById, [thread.id])).toEqual([]);
        expect(await runPreparedAsTenant(single, { orgId: orgA }, threadById, [thread.id])).toEqual([
          { id: thread.id },
        ]);
        const [state] = await single.query(sessionState.text);
        expect(state.user).not.toBe('parley_tenant');
        expect(state.org).toBe('');
      }
      // A statement that fails leaves the connection usable, its prepared statement included.
      await expect(runPreparedAsTenant(single, { orgId: orgA }, threadById, ['not-a-uuid'])).rejects.toThrow(
        /uuid/,
      );
      expect(await runPreparedAsTenant(single, { orgId: orgA }, threadById, [thread.id])).toHaveLength(1);
      // The repository's hot statements: the right scope finds the reply, another organization's does not.
      const repository = new MessageRepository(single);
      expect(await repository.findVisibleState(alice, reply.id)).toEqual({ id: reply.id, live: true });
      expect(await repository.findVisibleState({ orgId: orgB }, reply.id)).toBeNull();
    } finally {
      await single.destroy();
    }
  });

  it('holds through PgBouncer in transaction mode: the scope ends with its transaction', async () => {
    const { thread } = await storedThread(alice);
    // One server connection for every client: whatever a transaction left behind, the next one would inherit.
    const bouncer = await PgBouncer.start(database.environment.databaseUrl, [
      { name: 'shared_rls', database: database.environment.name, poolSize: 1 },
    ]);
    const pooled = await new DataSource(
      dataSourceOptions(
        loadSettings({ DATABASE_URL: bouncer.url(database.environment.databaseUrl, 'shared_rls') }),
        4,
      ),
    ).initialize();
    try {
      for (let round = 0; round < 3; round++) {
        expect(
          await withTenant(pooled, { orgId: orgB }, (tx) => threads.findVisible(alice, thread.id, tx)),
        ).toBeNull();
        // The next transaction on the same server connection is not B's any more.
        const [{ user }] = await pooled.query(`SELECT current_user AS user`);
        expect(user).not.toBe('parley_tenant');
        expect(
          (await withTenant(pooled, { orgId: orgA }, (tx) => threads.findVisible(alice, thread.id, tx)))?.id,
        ).toBe(thread.id);
        // A statement sent with its tenant setting in one round trip ends its scope with it too.
        expect(await runPreparedAsTenant(pooled, { orgId: orgB }, threadById, [thread.id])).toEqual([]);
        expect(await pooled.query(sessionState.text)).toEqual([
          { user: expect.not.stringMatching(/tenant/), org: '' },
        ]);
        expect(await runPreparedAsTenant(pooled, { orgId: orgA }, threadById, [thread.id])).toHaveLength(1);
      }
    } finally {
      await pooled.destroy();
      await bouncer.stop();
    }
  });
});
