import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { webhookEvent } from '@app/contracts';
import {
  AgentEntity,
  MessageEntity,
  RunStepEntity,
  ThreadEntity,
  ThreadSummaryRepository,
  ToolCallEntity,
} from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';
import { doneOutcome } from './stored-thread';

/**
 * The statements a conversation's hot path makes in one round trip each (POST /chat's writes, a run's load,
 * start and context) give the same rows TypeORM reads and writes one table at a time.
 */
describe('one-statement chat and run persistence', () => {
  const database = useTestDatabase();
  let db: DataSource;
  const orgId = randomUUID();
  const agentId = randomUUID();

  const exchange = (content: string) => ({
    message: {
      content,
      fileIds: [],
      sourceIds: [3, 1],
      documentIds: null,
      disabledTools: ['web'],
    },
    reply: { agentId, maxSteps: 4 },
  });

  beforeAll(async () => {
    db = database.db;
    await database.addOrganizations(orgId);
    await db.query(
      `INSERT INTO agents (id, org_id, name, tools, mcp_servers, token_budget)
       VALUES ($1, $2, 'a', '["clock","mcp:files"]', '[{"name":"files","server":"x"}]', 1000)`,
      [agentId, orgId],
    );
  });

  /** How a reply's run start goes, under an organization cap of `orgCap`. */
  const start = async (reply: { id: string }, orgCap = 100) =>
    (await database.runs.loadAndStart(reply.id, orgCap))?.start;

  async function startThread(userId: string | null = 'u1') {
    const thread = database.threads.build(
      { orgId, userId: userId ?? undefined },
      { agentId, name: 'first', projectId: 'p', memoryNamespace: 'ns' },
    );
    return {
      thread,
      ...(await database.messages.startThread({ orgId: thread.orgId }, thread, exchange('hello'))),
    };
  }

  it('stores a new thread and its exchange in one statement, as TypeORM reads them back', async () => {
    const { thread, question, reply } = await startThread();

    expect(await db.getRepository(ThreadEntity).findOneByOrFail({ id: thread.id })).toEqual(thread);
    const stored = await db.getRepository(MessageEntity).find({
      where: { threadId: thread.id },
      order: { position: 'ASC' },
    });
    expect(stored).toEqual([question, reply]);
    expect(stored.map((m) => [m.position, m.role, m.status, m.live])).toEqual([
      [0, 'user', 'success', false],
      [1, 'assistant', 'pending', true],
    ]);
    expect(reply.replyToId).toBe(question.id);
    expect(question.sourceIds).toEqual([3, 1]);
  });

  it('adds a follow-up exchange at the next positions inside a transaction', async () => {
    const { thread } = await startThread();
    const added = await db.transaction((tx) =>
      database.messages.addExchange(tx, { orgId }, thread, exchange('again')),
    );
    expect([added.question.position, added.reply.position]).toEqual([2, 3]);
    expect(await db.getRepository(MessageEntity).findOneByOrFail({ id: added.reply.id })).toEqual(
      added.reply,
    );
  });

  it('gives a run its own branch only: the messages it follows and the summaries made on them', async () => {
    const summaries = new ThreadSummaryRepository(db);
    const { thread, question, reply: first } = await startThread();
    const a = await db.transaction((tx) =>
      database.messages.addExchange(tx, { orgId }, thread, exchange('branch a')),
    );
    const a2 = await db.transaction((tx) =>
      database.messages.addExchange(tx, { orgId }, thread, exchange('a again')),
    );
    // A summary made on branch a, of the messages up to its first reply.
    await summaries.save({
      threadId: thread.id,
      messageId: a2.reply.id,
      throughPosition: a.reply.position,
      throughMessageId: a.reply.id,
      summarizedMessages: 4,
      summary: 'made on a',
      summaryTokens: 3,
      inputTokens: 0,
      outputTokens: 3,
    });
    const ids = (rows: MessageEntity[]) => rows.map((message) => message.id);

    // An edit of "branch a": the new user message follows what that one followed.
    const b = await db.transaction((tx) =>
      database.messages.addExchange(tx, { orgId }, thread, exchange('branch b'), first.id),
    );
    const onB = await database.runs.context(b.reply, agentId);
    expect(ids(onB.history)).toEqual([question.id, first.id, b.question.id]);
    expect(onB.summary).toBeNull();
    expect(ids(await database.messages.listActiveBranch({ orgId }, thread.id))).toEqual([
      question.id,
      first.id,
      b.question.id,
      b.reply.id,
    ]);

    // A regenerated reply on branch a sees branch a up to its user message, and the summary made there.
    const again = await db.transaction((tx) =>
      database.messages.addReply(tx, { orgId }, thread, a2.question, { agentId, maxSteps: 4 }),
    );
    expect(again).toMatchObject({ parentId: a2.question.id, replyToId: a2.question.id, position: 8 });
    const onA = await database.runs.context(again, agentId);
    expect(ids(onA.history)).toEqual([question.id, first.id, a.question.id, a.reply.id, a2.question.id]);
    expect(onA.summary).toMatchObject({ summary: 'made on a', throughPosition: a.reply.position });
    expect(ids(await database.messages.listActiveBranch({ orgId }, thread.id))).toEqual([
      question.id,
      first.id,
      a.question.id,
      a.reply.id,
      a2.question.id,
      again.id,
    ]);
    expect(await database.messages.previousReplyId({ orgId }, again)).toBe(a.reply.id);
    expect(await database.messages.previousReplyId({ orgId }, first)).toBeNull();
    expect(await database.messages.hasFollower({ orgId }, thread.id, a2.reply.id)).toBe(false);
    expect(await database.messages.hasFollower({ orgId }, thread.id, a2.question.id)).toBe(true);
  });

  it('loads a reply with its thread and agent, equal to what TypeORM reads, and starts its run', async () => {
    const { thread, reply } = await startThread(null);
    const before = await db.getRepository(MessageEntity).findOneByOrFail({ id: reply.id });
    const loaded = await database.runs.loadAndStart(reply.id, 100);

    expect(loaded?.reply).toEqual(before);
    expect(loaded?.thread).toEqual(await db.getRepository(ThreadEntity).findOneByOrFail({ id: thread.id }));
    expect(loaded?.agent).toEqual(await db.getRepository(AgentEntity).findOneByOrFail({ id: agentId }));
    expect(loaded?.agent?.tokenBudget).toBe(1000);
    expect(loaded?.start).toBe('started');
    expect(await db.getRepository(MessageEntity).findOneByOrFail({ id: reply.id })).toMatchObject({
      status: 'running',
    });
    expect(await database.runs.loadAndStart(randomUUID(), 100)).toBeNull();
    // A user message is loaded, never started.
    expect(await database.runs.loadAndStart(loaded!.reply.replyToId!, 100)).toMatchObject({ start: null });
  });

  it('fixes the agent version of a reply that pinned none at its start, in the start itself, and never changes it after', async () => {
    const versioned = randomUUID();
    await db.query(`INSERT INTO agents (id, org_id, name) VALUES ($1, $2, 'versioned')`, [versioned, orgId]);
    const addVersion = (version: number) =>
      db.query(
        `INSERT INTO agent_versions (id, org_id, agent_id, version, config, actor_type, actor_id)
         VALUES ($1, $2, $3, $4, '{}', 'user', 'u')`,
        [randomUUID(), orgId, versioned, version],
      );
    await addVersion(1);
    await addVersion(2);
    const storedVersion = async (id: string) =>
      (await db.getRepository(MessageEntity).findOneByOrFail({ id })).agentVersion;
    const thread = database.threads.build(
      { orgId, userId: 'u1' },
      { agentId: versioned, name: 'v', projectId: null, memoryNamespace: null },
    );
    const { reply } = await database.messages.startThread({ orgId: thread.orgId }, thread, {
      ...exchange('hi'),
      reply: { agentId: versioned, maxSteps: 4 },
    });

    const loaded = await database.runs.loadAndStart(reply.id, 100);
    // The row read beside the start shows none yet; the start wrote the one the run uses: the latest.
    expect(loaded).toMatchObject({ start: 'started', agentVersion: 2 });
    expect(loaded?.reply.agentVersion).toBeNull();
    expect(await storedVersion(reply.id)).toBe(2);

    // Resumed after its agent got a version 3: it keeps 2.
    await addVersion(3);
    expect(await database.runs.loadAndStart(reply.id, 100)).toMatchObject({
      start: 'started',
      agentVersion: 2,
    });
    expect(await storedVersion(reply.id)).toBe(2);

    // A pinned version stays; a blocked start writes nothing.
    const pinned = await db.transaction((tx) =>
      database.messages.addExchange(tx, { orgId }, thread, {
        ...exchange('pinned'),
        reply: { agentId: versioned, maxSteps: 4, agentVersion: 1 },
      }),
    );
    const unpinned = await db.transaction((tx) =>
      database.messages.addExchange(tx, { orgId }, thread, {
        ...exchange('later'),
        reply: { agentId: versioned, maxSteps: 4 },
      }),
    );
    expect(await start(unpinned.reply)).toBe('blocked');
    expect(await storedVersion(unpinned.reply.id)).toBeNull();
    await db.query(`UPDATE messages SET live = false, status = 'success' WHERE id = $1`, [reply.id]);
    expect(await database.runs.loadAndStart(pinned.reply.id, 100)).toMatchObject({
      start: 'started',
      agentVersion: 1,
    });
    expect(await storedVersion(pinned.reply.id)).toBe(1);

    // A caller of the previous release (four arguments) still starts a reply, and writes no version.
    await db.query(`UPDATE messages SET live = false, status = 'success' WHERE id = $1`, [pinned.reply.id]);
    const [{ blocked }]: { blocked: boolean }[] = await db.query(
      `SELECT parley_start_run($1, $2, false, 100) AS blocked`,
      [unpinned.reply.id, orgId],
    );
    expect(blocked).toBe(false);
    expect(await db.getRepository(MessageEntity).findOneByOrFail({ id: unpinned.reply.id })).toMatchObject({
      status: 'running',
      agentVersion: null,
    });
  });

  it("says in the run's context whether the reply is still stored (the claim of its log asks it)", async () => {
    const { reply } = await startThread();
    expect((await database.runs.context(reply, agentId)).stored).toBe(true);
    await db.query(`DELETE FROM messages WHERE id = $1`, [reply.id]);
    expect((await database.runs.context(reply, agentId)).stored).toBe(false);
  });

  it("gives a run's context: history before it, its steps and tool results, the next step's gate", async () => {
    const { thread, reply: first } = await startThread();
    const next = await db.transaction((tx) =>
      database.messages.addExchange(tx, { orgId }, thread, exchange('later')),
    );
    const gate = { threadId: thread.id, agentId };
    const step = Object.assign(new RunStepEntity(), {
      messageId: next.reply.id,
      step: 1,
      text: 'calling',
      toolCalls: [{ callId: 'c1', name: 'clock', arguments: {} }],
      questions: null,
      structuredOutput: null,
      usageTokens: 600,
      contentLength: 7,
      startedAt: new Date(),
    });
    await database.runs.saveStep(step, gate);
    const result = Object.assign(new ToolCallEntity(), {
      idempotencyKey: `${next.reply.id}:1:c1`,
      messageId: next.reply.id,
      step: 1,
      callId: 'c1',
      name: 'clock',
      arguments: {},
      output: { now: 'x' },
      isError: false,
      durationMs: 2,
    });
    await database.runs.saveToolResult(result, gate);

    const context = await database.runs.context(next.reply, agentId);
    expect(context.history).toEqual(
      (
        await db.getRepository(MessageEntity).find({
          where: { threadId: thread.id },
          order: { position: 'ASC' },
        })
      ).slice(0, 3),
    );
    expect(context.history.map((m) => m.id)).not.toContain(next.reply.id);
    expect(context.history[1].id).toBe(first.id);
    expect(context.steps).toEqual(await db.getRepository(RunStepEntity).findBy({ messageId: next.reply.id }));
    expect(context.toolResults).toEqual(
      await db.getRepository(ToolCallEntity).findBy({ messageId: next.reply.id }),
    );
    expect(context.gate).toEqual({
      archived: false,
      agentBudget: { limit: 1000, used: 0 },
      organizationBudget: { limit: null, used: 0 },
      userBudget: null,
    });

    // What the agent spent counts, whether in its counter or an ended reply's tokens not folded into it yet.
    await db.query(`UPDATE agents SET tokens_used = 400 WHERE id = $1`, [agentId]);
    expect((await database.runs.context(next.reply, agentId)).gate.agentBudget).toEqual({
      limit: 1000,
      used: 400,
    });
    await db.query(`UPDATE agents SET tokens_used = 0 WHERE id = $1`, [agentId]);
    await db.query(
      `INSERT INTO token_usage_pending (message_id, agent_id, org_id, tokens) VALUES ($1, $2, $3, 400)`,
      [randomUUID(), agentId, orgId],
    );
    expect((await database.runs.context(next.reply, agentId)).gate.agentBudget).toEqual({
      limit: 1000,
      used: 400,
    });
    await db.query(`DELETE FROM token_usage_pending WHERE agent_id = $1`, [agentId]);
  });

  it('starts a reply only after the earlier live replies of its thread, unless the thread is archived', async () => {
    const { thread, reply: first } = await startThread();
    const second = (
      await db.transaction((tx) => database.messages.addExchange(tx, { orgId }, thread, exchange('b')))
    ).reply;
    const status = async (id: string) =>
      (await db.getRepository(MessageEntity).findOneByOrFail({ id })).status;

    expect(await start(second)).toBe('blocked');
    expect(await status(second.id)).toBe('pending');
    // On an archived thread a reply only closes: it never waits for the earlier one.
    await db.query(`UPDATE threads SET archived_at = now() WHERE id = $1`, [thread.id]);
    expect(await start(second)).toBe('started');
    expect(await status(second.id)).toBe('running');
    await db.query(`UPDATE threads SET archived_at = NULL WHERE id = $1`, [thread.id]);

    expect(await start(first)).toBe('started');
    expect(await status(first.id)).toBe('running');
    expect(await database.runs.nextLiveReply(thread.id)).toBe(first.id);

    // Ending the first reply names the next one to run, in the same statement; only one ending counts.
    const outcome = doneOutcome();
    const event = webhookEvent('message.completed', {});
    // (Other tests' waiting replies share this organization: its next waiting reply is checked below.)
    expect((await database.runs.finish(first.id, outcome, event))?.nextReplyId).toBe(second.id);
    expect(await database.runs.finish(first.id, outcome, event)).toBeNull();
    expect(await database.runs.finish(second.id, outcome, event)).toEqual(
      expect.objectContaining({ nextReplyId: null }),
    );
    expect(await database.runs.nextLiveReply(thread.id)).toBeNull();
  });

  it('stores the last step with the final row, once, and counts its tokens with the earlier steps', async () => {
    const { reply } = await startThread();
    const step = (number: number, usageTokens: number) =>
      Object.assign(new RunStepEntity(), {
        messageId: reply.id,
        step: number,
        text: `step ${number}`,
        toolCalls: [],
        questions: null,
        structuredOutput: { n: number },
        usageTokens,
        contentLength: 6 * number,
        deltaLengths: [6],
        streamedText: null,
        startedAt: new Date(),
      });
    const gate = { threadId: reply.threadId, agentId, replyTokens: 0 };
    await database.runs.saveStep(step(1, 30), gate);
    const [before] = await db.query(`SELECT tokens_used::int AS n FROM agents WHERE id = $1`, [agentId]);
    const outcome = {
      status: 'success' as const,
      content: 'step 1step 2',
      errorCode: null,
      questions: null,
      structuredOutput: { n: 2 },
      events: [],
      deltaLengths: [6, 6],
    };

    expect(
      await database.runs.finish(reply.id, outcome, webhookEvent('message.completed', {}), step(2, 12)),
    ).not.toBeNull();
    // Someone else's finish of the same reply stores nothing more and counts nothing twice.
    expect(
      await database.runs.finish(reply.id, outcome, webhookEvent('message.completed', {}), step(2, 99)),
    ).toBeNull();

    const stored = await db
      .getRepository(RunStepEntity)
      .find({ where: { messageId: reply.id }, order: { step: 'ASC' } });
    expect(stored.map((row) => [row.step, row.text, row.usageTokens, row.structuredOutput])).toEqual([
      [1, 'step 1', 30, { n: 1 }],
      [2, 'step 2', 12, { n: 2 }],
    ]);
    const final = await db.getRepository(MessageEntity).findOneByOrFail({ id: reply.id });
    expect([final.live, final.usageTokens]).toEqual([false, 42]);
    // Counted once, for the fold: the budget sees it at once, the counter once folded.
    const [pending] = await db.query(
      `SELECT tokens::int AS n FROM token_usage_pending WHERE message_id = $1`,
      [reply.id],
    );
    expect(pending.n).toBe(42);
    expect(await database.runs.foldTokenUsage()).toBeGreaterThanOrEqual(1);
    expect(await database.runs.foldTokenUsage()).toBe(0);
    const [after] = await db.query(`SELECT tokens_used::int AS n FROM agents WHERE id = $1`, [agentId]);
    expect(after.n - before.n).toBe(42);
  });

  describe("an organization's cap on running replies", () => {
    const outcome = doneOutcome();

    async function newOrg() {
      const org = randomUUID();
      const agent = randomUUID();
      await db.query(`INSERT INTO organizations (id, name) VALUES ($1, $2)`, [org, `org-${org}`]);
      await db.query(`INSERT INTO agents (id, org_id, name) VALUES ($1, $2, 'a')`, [agent, org]);
      return async () => {
        const thread = database.threads.build(
          { orgId: org, userId: 'u1' },
          { agentId: agent, name: 't', projectId: null, memoryNamespace: null },
        );
        return (
          await database.messages.startThread({ orgId: thread.orgId }, thread, {
            ...exchange('hi'),
            reply: { agentId: agent, maxSteps: 4 },
          })
        ).reply;
      };
    }

    it('lets only `cap` replies of one organization run at once, even when they start together', async () => {
      const replyOf = await newOrg();
      const replies = [];
      for (let i = 0; i < 6; i++) replies.push(await replyOf());
      const results = await Promise.all(replies.map((reply) => start(reply, 2)));
      expect(results.filter((result) => result === 'started')).toHaveLength(2);
      const [running] = await db.query(
        `SELECT count(*)::int AS n FROM messages WHERE org_id = $1 AND status = 'running'`,
        [replies[0].orgId],
      );
      expect(running.n).toBe(2);

      // Another organization is not held back by this one's runs.
      const other = await (await newOrg())();
      expect(await start(other, 2)).toBe('started');
    });

    it('holds a reply back while its organization is at the cap, and names it when a slot frees', async () => {
      const replyOf = await newOrg();
      const [first, second, third] = [await replyOf(), await replyOf(), await replyOf()];
      expect(await start(first, 2)).toBe('started');
      expect(await start(second, 2)).toBe('started');
      expect(await start(third, 2)).toBe('blocked');
      expect(await database.runs.isBlocked(third.id, 2)).toBe(true);
      // A reply already running (resumed after a crash) is never held back by the cap.
      expect(await start(second, 2)).toBe('started');

      expect(await database.runs.nextWaitingReplyOfOrg(third.orgId)).toEqual({
        id: third.id,
        threadId: third.threadId,
      });
      // The finish names the reply the freed slot goes to, in the same statement.
      expect(
        await database.runs.finish(first.id, outcome, webhookEvent('message.completed', {}), null, 2),
      ).toEqual({
        nextReplyId: null,
        nextOfOrg: { id: third.id, threadId: third.threadId },
        nextParked: null,
      });
      expect(await database.runs.isBlocked(third.id, 2)).toBe(false);
      expect(await start(third, 2)).toBe('started');
      expect(await database.runs.nextWaitingReplyOfOrg(third.orgId)).toBeNull();
    });
  });
});
