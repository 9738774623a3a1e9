import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { loadSettings } from '@app/config';
import { webhookEvent } from '@app/contracts';
import {
  AgentRepository,
  AiSdkChatRepository,
  ApiKeyRepository,
  ConnectionRepository,
  ConversationFileRepository,
  dataSourceOptions,
  DocumentRepository,
  ErasureRepository,
  FeedbackRepository,
  IdempotencyKeyRepository,
  IdempotentWrite,
  MessageRepository,
  PassageSearchRepository,
  preparedStatement,
  QueryTemplateRepository,
  RetentionRepository,
  RoutineRepository,
  runPreparedAsTenant,
  Scope,
  ShareLinkRepository,
  SkillRepository,
  SourceRepository,
  ThreadRepository,
  ToolApprovalRepository,
  UsageRepository,
  UserBudgetRepository,
  UserExportRepository,
  withTenant,
} from '@app/persistence';
import { addUploadSource } from '../knowledge/indexed-sources';
import { PgBouncer } from '../../support/pgbouncer';
import { storedThread as storedThreadOf } from './stored-thread';
import { useTestDatabase } from '../../support/test-database';

/** A text file an upload permission created for `owner`, not yet uploaded. */
function pendingFile(files: ConversationFileRepository, owner: Scope) {
  return files.createPending(owner, {
    id: randomUUID(),
    name: 'f.txt',
    mimetype: 'text/plain',
    storageKey: `k/${randomUUID()}`,
  });
}

/** An organization's own skill, created by alice, with an empty body. */
function customSkill(skills: SkillRepository, orgId: string, name: string, displayName: string) {
  return skills.createCustom({
    id: randomUUID(),
    orgId,
    name,
    displayName,
    frontmatter: {},
    body: '',
    document: '',
    scope: 'organization',
    createdBy: 'alice',
  } as never);
}

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
      expect(await messages.find(alice, reply.id, tx)).toBeNull();
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
  /**
   * The repositories that serve a caller, on a connection whose own role the policies give nothing: a role that
   * may take `parley_tenant` but owns no table (the tests' own role is a superuser, which row-level security
   * never restricts). A method that ran its statement as the connecting role would find nothing of alice's here;
   * only one that enters the tenant's transaction for her organization finds her rows, and one handed another
   * organization's tenant transaction finds none of them.
   */
  describe('the repositories that serve a caller', () => {
    const probeRole = 'parley_rls_probe';
    let probe: DataSource;

    beforeAll(async () => {
      await db.query(`
        DO $$ BEGIN
          IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${probeRole}') THEN
            CREATE ROLE ${probeRole} LOGIN NOSUPERUSER NOBYPASSRLS;
          END IF;
        END $$`);
      await db.query(`GRANT parley_tenant TO ${probeRole}`);
      await db.query(`GRANT USAGE ON SCHEMA public TO ${probeRole}`);
      await db.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${probeRole}`);
      await db.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${probeRole}`);
      const url = new URL(database.environment.databaseUrl);
      url.username = probeRole;
      url.password = '';
      probe = await new DataSource(
        dataSourceOptions(loadSettings({ DATABASE_URL: url.toString() }), 2),
      ).initialize();
      // The probe itself sees nothing of any organization: every finding below is the tenant's.
      await storedThread(alice);
      const [{ n }] = await probe.query(`SELECT count(*)::int AS n FROM threads`);
      expect(n).toBe(0);
    });

    afterAll(async () => {
      await probe?.destroy();
      await db.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${probeRole}`);
      await db.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ${probeRole}`);
      await db.query(`REVOKE USAGE ON SCHEMA public FROM ${probeRole}`);
    });

    /** Organization B's tenant transaction on the probe. */
    const asB = <T>(work: (tx: EntityManager) => Promise<T>) => withTenant(probe, { orgId: orgB }, work);
    const today = new Date().toISOString().slice(0, 10);

    it('feedback, budgets, usage and AI SDK chats', async () => {
      const { thread, reply } = await storedThread(alice);
      const feedback = new FeedbackRepository(probe);
      const rating = { messageId: reply.id, rating: 1 as const, comment: null, eventId: randomUUID() };
      expect((await feedback.put(alice, rating))?.messageId).toBe(reply.id);
      expect(await feedback.put({ orgId: orgB, userId: 'alice' }, rating)).toBeNull();
      expect((await feedback.list(orgA, { limit: 10 })).map((f) => f.messageId)).toContain(reply.id);
      expect(await feedback.listOfUser(orgA, 'alice', null, 10)).not.toEqual([]);
      expect(await feedback.list(orgB, { limit: 10 })).toEqual([]);

      const budgets = new UserBudgetRepository(probe);
      await budgets.put(orgA, 'alice', 'day', 1000);
      expect((await budgets.find(orgA, 'alice'))?.maxTokens).toBe(1000);
      expect(await asB((tx) => budgets.delete(orgA, 'alice', tx))).toBe(false);
      expect(await budgets.find(orgA, 'alice')).not.toBeNull();

      const usage = new UsageRepository(probe);
      const spend = {
        orgId: orgA,
        agentId: thread.agentId,
        userId: 'alice',
        model: 'builtin',
        inputTokens: 3,
        outputTokens: 4,
        cachedInputTokens: 0,
      };
      await usage.recordModelCall(spend);
      expect(await usage.sums({ orgId: orgA, from: today, to: today })).toEqual([
        expect.objectContaining({ inputTokens: 3, outputTokens: 4 }),
      ]);
      await expect(asB((tx) => usage.recordModelCall(spend, tx))).rejects.toThrow(/row-level security/);

      const chats = new AiSdkChatRepository(probe);
      await chats.bind({ orgId: orgA, userId: 'alice' }, 'chat-1', thread.id);
      expect(await chats.findThreadId({ orgId: orgA, userId: 'alice' }, 'chat-1')).toBe(thread.id);
      expect(await chats.findThreadId({ orgId: orgB, userId: 'alice' }, 'chat-1')).toBeNull();
    });

    it('idempotency keys', async () => {
      const keys = new IdempotencyKeyRepository(probe);
      const window = { retentionMs: 60_000, leaseMs: 60_000 };
      const key = `k-${randomUUID()}`;
      const claim = await keys.claim(orgA, 'alice', key, 'fp', window);
      expect(claim.state).toBe('claimed');
      // The second claim reads the holder's row: under the wall, or it would take the key again.
      expect((await keys.claim(orgA, 'alice', key, 'fp', window)).state).toBe('processing');
      const token = claim.state === 'claimed' ? claim.token : '';
      const write = new IdempotentWrite(orgA, 'alice', key, token, 200);
      await expect(
        asB((tx) => keys.recordAnswer(tx, write, { ok: true }, { threadId: null })),
      ).rejects.toThrow(/still being processed/);
      await withTenant(probe, { orgId: orgA }, (tx) =>
        keys.recordAnswer(tx, write, { ok: true }, { threadId: null }),
      );
      expect(await keys.claim(orgA, 'alice', key, 'fp', window)).toEqual(
        expect.objectContaining({ state: 'completed', statusCode: 200 }),
      );
    });

    it('routines, keys, agents, skills, files and exports', async () => {
      const { thread, reply } = await storedThread(alice);
      const key = await new ApiKeyRepository(probe).create({
        orgId: orgA,
        name: 'k',
        keyHash: randomUUID(),
        kind: 'sk-svc',
      });
      expect((await new ApiKeyRepository(probe).listByOrg(orgA)).map((k) => k.id)).toContain(key.id);

      const routines = new RoutineRepository(probe);
      const owner = { orgId: orgA, userId: 'alice' };
      const routine = await routines.create(owner, {
        keyId: key.id,
        name: 'r',
        agentId: thread.agentId,
        schedule: '0 9 * * *',
        timezone: 'UTC',
        message: { content: 'hi' },
        options: {},
        active: true,
        nextRunAt: null,
      });
      expect((await routines.findVisible(owner, routine.id))?.id).toBe(routine.id);
      expect((await routines.listVisible(owner)).map((r) => r.id)).toContain(routine.id);
      expect(await routines.findVisible({ orgId: orgB, userId: 'alice' }, routine.id)).toBeNull();
      expect((await routines.update(owner, routine.id, { name: 'renamed' }))?.name).toBe('renamed');

      const agents = new AgentRepository(probe);
      expect((await agents.findMany(orgA, [thread.agentId])).map((a) => a.id)).toEqual([thread.agentId]);
      expect((await agents.listByOrg(orgA, { includeArchived: true })).length).toBeGreaterThan(0);
      expect(await asB((tx) => agents.findActive(orgA, thread.agentId, tx))).toBeNull();
      expect(await asB((tx) => agents.findMany(orgA, [thread.agentId], tx))).toEqual([]);

      const skills = new SkillRepository(probe);
      const name = `skill-${randomUUID().slice(0, 8)}`;
      await customSkill(skills, orgA, name, name);
      expect(await skills.nameTaken(orgA, name)).toBe(true);
      expect(await skills.nameTaken(orgB, name)).toBe(false);

      const files = new ConversationFileRepository(probe);
      const file = await pendingFile(files, alice);
      await db.query(`UPDATE conversation_files SET status = 'uploaded' WHERE id = $1`, [file.id]);
      expect((await files.findForMessages(orgA, [file.id], [reply.id])).map((f) => f.id)).toEqual([file.id]);
      expect(await files.findForMessages(orgB, [file.id], [reply.id])).toEqual([]);

      const exports = new UserExportRepository(probe);
      expect((await exports.exportThreads(orgA, 'alice', null, 100)).map((t) => t.id)).toContain(thread.id);
      expect((await exports.exportFiles(orgA, 'alice', null, 100)).map((f) => f.id)).toEqual([file.id]);
      expect((await exports.exportRoutines(orgA, 'alice')).map((r) => r.id)).toEqual([routine.id]);
      expect((await exports.agentsOf(orgA)).map((a) => a.id)).toContain(thread.agentId);
      expect(await exports.exportThreads(orgB, 'alice', null, 100)).toEqual([]);
      expect(await routines.remove(owner, routine.id)).toBe(true);
    });

    it('erasure, retention, documents and passage search', async () => {
      const { thread } = await storedThread(alice);
      const erasures = new ErasureRepository(probe);
      expect(await erasures.userThreadIds(orgA, 'alice', 1000)).toContain(thread.id);
      expect(await erasures.liveThreadIds(orgA, 'alice')).toContain(thread.id);
      expect(await asB((tx) => erasures.lockThread(tx, orgA, thread.id))).toBeNull();
      expect(await asB((tx) => erasures.deleteThreads(tx, orgA, [thread.id]))).toEqual({
        threads: 0,
        webhook_deliveries: 0,
        idempotency_records: 0,
      });
      const receipt = await withTenant(probe, { orgId: orgA }, (tx) =>
        erasures.start(tx, orgA, 'hash-alice', 'alice', { type: 'key', id: 'k' } as never),
      );
      expect((await erasures.find(orgA, receipt.id))?.id).toBe(receipt.id);
      expect(await erasures.find(orgB, receipt.id)).toBeNull();

      const retention = new RetentionRepository(probe);
      await retention.setRetentionDays(probe.manager, orgA, 30);
      expect(await retention.retentionDays(orgA)).toBe(30);
      expect(await retention.retentionDays(orgB)).toBeNull();
      const later = new Date(Date.now() + 86_400_000);
      expect(await retention.staleLiveThreadIds(orgA, later, 1000)).toContain(thread.id);
      expect(await retention.staleLiveThreadIds(orgB, later, 1000)).toEqual([]);

      const source = await addUploadSource(db, orgA, 'organization', 'alice');
      await new DocumentRepository(probe).upsertListed(
        source,
        [{ externalId: 'd', name: 'd', mimeType: 'text/plain', size: 1, version: '1' }],
        1,
      );
      expect(await new DocumentRepository(probe).listBySource(source)).toHaveLength(1);
      expect(await new DocumentRepository(probe).listBySource({ id: source.id, orgId: orgB })).toEqual([]);
      await expect(
        new DocumentRepository(probe).upsertListed(
          { id: source.id, orgId: orgB },
          // Alice's document, listed again for organization B: the conflict is on a row B may not change.
          [{ externalId: 'd', name: 'taken', mimeType: 'text/plain', size: 1, version: '2' }],
          1,
        ),
      ).rejects.toThrow(/row-level security/);
      const search = new PassageSearchRepository(probe);
      expect((await search.visibleSources(orgA, 'alice', null)).map((s) => s.id)).toContain(source.id);
      expect(await search.visibleSources(orgB, 'alice', [source.id])).toEqual([]);
    });

    /** Another organization's scope for alice's ids: what a request of organization B would hand the methods. */
    const other: Scope = { orgId: orgB, userId: 'alice' };
    const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
    const content = { content: 'hi', fileIds: [], sourceIds: null, documentIds: null, disabledTools: null };
    const cancelled = (id: string) => webhookEvent('message.cancelled', { id, status: 'cancelled' });

    it("messages and threads by id: the owner's scope finds them, another organization's finds or changes nothing", async () => {
      const { thread, question, reply } = await storedThread(alice);
      const messages = new MessageRepository(probe);
      expect((await messages.find(alice, reply.id))?.id).toBe(reply.id);
      expect(await messages.find(other, reply.id)).toBeNull();
      expect((await messages.findInThread(alice, thread.id, question.id))?.id).toBe(question.id);
      expect(await messages.findInThread(other, thread.id, question.id)).toBeNull();
      expect(ids(await messages.listActiveBranch(alice, thread.id))).toEqual([question.id, reply.id]);
      expect(await messages.listActiveBranch(other, thread.id)).toEqual([]);
      expect(ids(await messages.listByThread(alice, thread.id))).toEqual([question.id, reply.id]);
      expect(await messages.listByThread(other, thread.id)).toEqual([]);
      expect(await messages.liveReplies(alice, thread.id)).toEqual([{ id: reply.id, status: 'pending' }]);
      expect(await messages.liveReplies(other, thread.id)).toEqual([]);
      expect(await messages.hasFollower(alice, thread.id, question.id)).toBe(true);
      expect(await messages.hasFollower(other, thread.id, question.id)).toBe(false);
      const later = { ...reply, createdAt: new Date(Date.now() + 60_000) };
      expect(await messages.orgBacklogBefore(alice, later)).toBeGreaterThan(0);
      expect(await messages.orgBacklogBefore(other, later)).toBe(0);
      // In a transaction of their own organization (the locked thread's on the gateway), the same.
      await withTenant(probe, { orgId: orgA }, async (tx) => {
        expect((await messages.find(alice, reply.id, tx))?.id).toBe(reply.id);
        expect(ids(await messages.lockUnheldReplies(tx, alice, thread.id))).toEqual([reply.id]);
        expect(await messages.liveReplies(alice, thread.id, tx)).toHaveLength(1);
      });
      await asB(async (tx) => {
        expect(await messages.lockUnheldReplies(tx, other, thread.id)).toEqual([]);
        expect(await messages.cancelUnheldReply(tx, other, reply.id, cancelled(reply.id))).toBeNull();
        await messages.setActiveLeaf(tx, other, thread.id, question.id);
      });
      expect(ids(await messages.listActiveBranch(alice, thread.id))).toEqual([question.id, reply.id]);
      // Rows written for alice's thread under organization B's scope are refused.
      const exchange = {
        message: { ...content, content: 'taken' },
        reply: { agentId: thread.agentId, maxSteps: 2 },
      };
      await expect(asB((tx) => messages.addExchange(tx, other, thread, exchange))).rejects.toThrow(
        /row-level security/,
      );
      await expect(
        asB((tx) => messages.addReply(tx, other, thread, question, exchange.reply)),
      ).rejects.toThrow(/row-level security/);
      const alicesNew = new ThreadRepository(probe).build(alice, {
        agentId: thread.agentId,
        name: 'n',
        projectId: null,
        memoryNamespace: null,
      });
      await expect(messages.startThread(other, alicesNew, exchange)).rejects.toThrow(/row-level security/);

      const threadRows = new ThreadRepository(probe);
      expect(await threadRows.isLive(alice, thread.id)).toBe(true);
      expect(await threadRows.isLive(other, thread.id)).toBe(false);
      await threadRows.update(other, thread.id, { name: 'taken' });
      await asB((tx) => threadRows.archive(tx, other, thread.id));
      expect(await threadRows.findVisible(alice, thread.id)).toMatchObject({ name: 't', archivedAt: null });
      await threadRows.update(alice, thread.id, { name: 'renamed' });
      expect((await threadRows.findVisible(alice, thread.id))?.name).toBe('renamed');

      const exports = new UserExportRepository(probe);
      expect(ids(await exports.exportMessages(orgA, thread.id, -1, 10))).toEqual([question.id, reply.id]);
      expect(await exports.exportMessages(orgB, thread.id, -1, 10)).toEqual([]);

      // A decision on a call the reply waits on: only in a transaction of the reply's organization.
      await new ToolApprovalRepository(db).request(
        reply.id,
        1,
        [{ callId: 'c1', callIndex: 0, name: 'web', arguments: {} }],
        60,
      );
      await db.query(`UPDATE messages SET status = 'requires_action' WHERE id = $1`, [reply.id]);
      const approvals = new ToolApprovalRepository(probe);
      const decide = (tx: EntityManager, scope: Scope) =>
        approvals.decide(tx, scope, reply.id, 'c1', 'approve', null, () => []);
      expect(await asB((tx) => decide(tx, other))).toBe('not_waiting');
      expect(await withTenant(probe, { orgId: orgA }, (tx) => decide(tx, alice))).toEqual({
        stillWaiting: [],
        expired: false,
      });
    });

    it('files, share links, skills, sources and connections by id: likewise', async () => {
      const files = new ConversationFileRepository(probe);
      const file = await pendingFile(files, alice);
      const sealed = { storageKey: `k/${randomUUID()}`, size: 3, mimetype: 'text/plain' };
      expect(await files.markUploaded(other, file.id, sealed)).toBeNull();
      expect(await files.markUploaded(alice, file.id, sealed)).toMatchObject({ status: 'uploaded', size: 3 });
      // Sealed once: a second record keeps the first.
      expect(await files.markUploaded(alice, file.id, { ...sealed, size: 9 })).toMatchObject({ size: 3 });

      const links = new ShareLinkRepository(probe);
      const unprotected = { expiresAt: null, passwordHash: null };
      await expect(links.create(other, file.id, unprotected)).rejects.toThrow(/row-level security/);
      const link = await links.create(alice, file.id, unprotected);
      expect(ids(await links.listByFiles(alice, [file.id]))).toEqual([link.id]);
      expect(await links.listByFiles(other, [file.id])).toEqual([]);
      expect(await links.revoke(other, file.id, link.id)).toBeNull();
      expect((await links.revoke(alice, file.id, link.id))?.revokedAt).toBeInstanceOf(Date);

      const skills = new SkillRepository(probe);
      const skill = await customSkill(skills, orgA, `skill-${randomUUID().slice(0, 8)}`, 'before');
      await skills.updateCustom(other, skill.id, { displayName: 'taken' });
      const displayName = async () =>
        (await db.query(`SELECT display_name FROM skills WHERE id = $1`, [skill.id]))[0].display_name;
      expect(await displayName()).toBe('before');
      await skills.updateCustom(alice, skill.id, { displayName: 'after' });
      expect(await displayName()).toBe('after');

      const source = await addUploadSource(db, orgA, 'organization', 'alice');
      const connections = new ConnectionRepository(probe);
      expect((await connections.findById(alice, source.connectionId))?.id).toBe(source.connectionId);
      expect(await connections.findById(other, source.connectionId)).toBeNull();
      expect(ids(await connections.findByIds(alice, [source.connectionId]))).toEqual([source.connectionId]);
      expect(await connections.findByIds(other, [source.connectionId])).toEqual([]);
      expect(await asB((tx) => connections.lockForUpdate(tx, other, source.connectionId))).toBeNull();

      const sources = new SourceRepository(probe);
      const report = () => ({ type: 'source.failed', payload: {} }) as never;
      await sources.failByConnection(other, source.connectionId, 'taken', report);
      await sources.archive(other, source.id);
      const state = async () =>
        (await db.query(`SELECT status, archived_at FROM sources WHERE id = $1`, [source.id]))[0];
      expect(await state()).toEqual({ status: 'pending', archived_at: null });
      await sources.archive(alice, source.id);
      expect((await state()).archived_at).toBeInstanceOf(Date);
    });
  });
});
