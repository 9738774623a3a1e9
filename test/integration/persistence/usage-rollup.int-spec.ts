import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { webhookEvent } from '@app/contracts';
import {
  MessageEntity,
  ReplyOutcome,
  RunStepEntity,
  UsageRepository,
  UserBudgetRepository,
} from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * GET /usage reads usage_daily, which the statement ending a reply adds to: its rows must equal the sums of the
 * ended replies themselves, whichever replies ended concurrently, with steps stored before the end or with it.
 */
describe('usage rollup kept as replies end', () => {
  const database = useTestDatabase(4);
  let db: DataSource;
  let usage: UsageRepository;
  const orgId = randomUUID();
  const otherOrgId = randomUUID();
  const agents = { builtin: randomUUID(), vendor: randomUUID(), elsewhere: randomUUID() };

  const outcome: ReplyOutcome = {
    status: 'success',
    content: 'done',
    errorCode: null,
    questions: null,
    structuredOutput: null,
    events: [],
    deltaLengths: [],
  };

  beforeAll(async () => {
    db = database.db;
    usage = new UsageRepository(db);
    for (const [id, name] of [
      [orgId, 'usage'],
      [otherOrgId, 'other'],
    ]) {
      await db.query(`INSERT INTO organizations (id, name) VALUES ($1, $2)`, [id, `${name}-${id}`]);
    }
    await db.query(
      `INSERT INTO agents (id, org_id, name, model) VALUES ($1, $3, 'b', 'builtin'), ($2, $3, 'v', 'openai:gpt-x'),
         ($4, $5, 'e', 'builtin')`,
      [agents.builtin, agents.vendor, orgId, agents.elsewhere, otherOrgId],
    );
  });

  const step = (messageId: string, number: number, input: number, output: number, toolCalls: number) =>
    Object.assign(new RunStepEntity(), {
      messageId,
      step: number,
      text: `step ${number}`,
      toolCalls: Array.from({ length: toolCalls }, (_, i) => ({
        callId: `c${i}`,
        name: 'clock',
        arguments: {},
      })),
      questions: null,
      structuredOutput: null,
      usageTokens: input + output,
      outputTokens: output,
      contentLength: 0,
      deltaLengths: [],
      streamedText: null,
      startedAt: new Date(),
    });

  /** A reply of `userId` (null: a routine's) to `agentId`, run for `steps` steps and ended. */
  async function reply(org: string, userId: string | null, agentId: string, steps: number, seed: number) {
    const thread = database.threads.build(
      { orgId: org, userId: userId ?? undefined },
      { agentId, name: 't', projectId: null, memoryNamespace: null },
    );
    const { reply: row } = await database.messages.startThread({ orgId: thread.orgId }, thread, {
      message: { content: 'hi', fileIds: [], sourceIds: null, documentIds: null, disabledTools: null },
      reply: { agentId, maxSteps: 5 },
    });
    await database.runs.loadAndStart(row.id, 100);
    for (let number = 1; number < steps; number++) {
      await database.runs.saveStep(
        step(row.id, number, 10 * seed + number, seed + number, number % 2 === 1 ? 2 : 1),
        {
          threadId: thread.id,
          agentId,
        },
      );
    }
    // The last step comes with the end, as a run stores it.
    const last = step(row.id, steps, 7 * seed, 3 * seed, 0);
    await database.runs.finish(row.id, outcome, webhookEvent('message.completed', {}), last);
    return row.id;
  }

  it('holds per day, user, agent and model exactly what the ended replies hold', async () => {
    const plan: [string, string | null, string, number][] = [];
    for (const user of ['ann', 'bob', 'cy', null]) {
      for (const agentId of [agents.builtin, agents.vendor]) {
        for (let steps = 1; steps <= 3; steps++) plan.push([orgId, user, agentId, steps]);
      }
    }
    plan.push([otherOrgId, 'ann', agents.elsewhere, 2]);
    // Replies of the same user and agent end at once: they add to the same day row.
    await Promise.all(plan.map(([org, user, agentId, steps], i) => reply(org, user, agentId, steps, i + 1)));

    const rawRows = `
      SELECT m.org_id, (m.completed_at AT TIME ZONE 'UTC')::date AS day, t.user_id, m.agent_id, m.model,
        count(*)::bigint AS replies, sum(m.input_tokens)::bigint AS input_tokens,
        sum(m.output_tokens)::bigint AS output_tokens, sum(m.tool_calls)::bigint AS tool_calls
      FROM messages m JOIN threads t ON t.id = m.thread_id
      WHERE m.role = 'assistant' AND NOT m.live
      GROUP BY 1, 2, 3, 4, 5`;
    const rolledUp = `
      SELECT org_id, day, user_id, agent_id, model, sum(replies)::bigint AS replies,
        sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
        sum(tool_calls)::bigint AS tool_calls
      FROM usage_daily GROUP BY 1, 2, 3, 4, 5`;
    const difference: unknown[] = await db.query(
      `(${rawRows} EXCEPT ALL ${rolledUp}) UNION ALL (${rolledUp} EXCEPT ALL ${rawRows})`,
    );
    expect(difference).toEqual([]);
    // Nine (organization, day, user, agent, model) keys, each in one or more of its shards.
    expect(
      await db.query(
        `SELECT count(DISTINCT (org_id, day, user_id, agent_id, model))::int AS n FROM usage_daily`,
      ),
    ).toEqual([{ n: 9 }]);

    // A reply's own row: tokens split as the steps reported them, tool calls counted, the agent's model.
    const [ended] = await db
      .getRepository(MessageEntity)
      .find({ where: { orgId: otherOrgId, role: 'assistant' } });
    const seed = plan.length;
    expect(ended).toMatchObject({
      usageTokens: 10 * seed + 1 + (seed + 1) + 10 * seed,
      inputTokens: 10 * seed + 1 + 7 * seed,
      outputTokens: seed + 1 + 3 * seed,
      toolCalls: 2,
      model: 'builtin',
    });
  });

  it('sums by the grouping within the organization, the day range and the filters', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const range = { orgId, from: today, to: today };
    const byUser = await usage.sums({ ...range, groupBy: 'user' });
    expect(byUser.map((row) => [row.key, row.model, row.replies])).toEqual([
      ['ann', 'builtin', 3],
      ['ann', 'openai:gpt-x', 3],
      ['bob', 'builtin', 3],
      ['bob', 'openai:gpt-x', 3],
      ['cy', 'builtin', 3],
      ['cy', 'openai:gpt-x', 3],
      [null, 'builtin', 3],
      [null, 'openai:gpt-x', 3],
    ]);
    const [raw] = await db.query(
      `SELECT count(*)::int AS replies, sum(input_tokens)::int AS input, sum(output_tokens)::int AS output
       FROM messages WHERE org_id = $1 AND role = 'assistant'`,
      [orgId],
    );
    const ungrouped = await usage.sums(range);
    expect(ungrouped.map((row) => [row.key, row.model])).toEqual([
      [null, 'builtin'],
      [null, 'openai:gpt-x'],
    ]);
    const total = (field: 'replies' | 'inputTokens' | 'outputTokens') =>
      ungrouped.reduce((sum, row) => sum + row[field], 0);
    expect([total('replies'), total('inputTokens'), total('outputTokens')]).toEqual([
      raw.replies,
      raw.input,
      raw.output,
    ]);

    const annOnVendor = await usage.sums({
      ...range,
      userId: 'ann',
      agentId: agents.vendor,
      groupBy: 'agent',
    });
    expect(annOnVendor).toEqual([
      expect.objectContaining({ key: agents.vendor, model: 'openai:gpt-x', replies: 3 }),
    ]);
    expect(await usage.sums({ ...range, groupBy: 'day' })).toEqual([
      expect.objectContaining({ key: today, model: 'builtin', replies: 12 }),
      expect.objectContaining({ key: today, model: 'openai:gpt-x', replies: 12 }),
    ]);
    expect(await usage.sums({ orgId, from: '2000-01-01', to: '2000-01-31' })).toEqual([]);
    // Another organization's replies are never in the sums.
    expect(await usage.sums({ ...range, userId: 'ann', agentId: agents.elsewhere })).toEqual([]);
  });

  it("gives a run's gate its end user's budget: ended replies and the user's other live ones", async () => {
    const budgets = new UserBudgetRepository(db);
    const [ended] = await db.query(
      `SELECT sum(m.input_tokens + m.output_tokens)::int AS n FROM messages m JOIN threads t ON t.id = m.thread_id
       WHERE t.org_id = $1 AND t.user_id = 'ann'`,
      [orgId],
    );
    expect(await budgets.put(orgId, 'ann', 'day', 10_000)).toMatchObject({
      usedTokens: ended.n,
      maxTokens: 10_000,
    });

    const first = await liveReply('ann');
    const { gate: firstGate } = await database.runs.saveStep(step(first.replyId, 1, 40, 2, 1), first);
    const second = await liveReply('ann');

    // Each run counts its own reply apart (token-budget.ts): the first sees the ended replies only.
    expect(firstGate).toMatchObject({ userBudget: { limit: 10_000, used: ended.n } });
    expect(await database.runs.gate(second)).toMatchObject({
      userBudget: { limit: 10_000, used: ended.n + 42 },
    });
    expect((await budgets.find(orgId, 'ann'))?.usedTokens).toBe(ended.n + 42);

    expect(await budgets.delete(orgId, 'ann')).toBe(true);
    expect(await database.runs.gate(second)).toMatchObject({ userBudget: null });
    expect(await budgets.find(orgId, 'ann')).toBeNull();
    expect(await budgets.delete(orgId, 'ann')).toBe(false);
  });

  it("passes a budgeted end user's spending turn from one model step to the next, never to two at once", async () => {
    const budgets = new UserBudgetRepository(db);
    await budgets.put(orgId, 'turns', 'day', 10_000);
    const [a, b] = [await liveReply('turns'), await liveReply('turns')];

    expect(await database.runs.takeUserBudgetTurn(a.replyId, a.threadId)).toBe(true);
    // Held by a running reply: the other waits; the holder takes it again (a run resumed after a crash).
    expect(await database.runs.takeUserBudgetTurn(b.replyId, b.threadId)).toBe(false);
    expect(await database.runs.takeUserBudgetTurn(a.replyId, a.threadId)).toBe(true);
    // Tried at once, one of the two has it.
    await database.runs.saveStep(step(a.replyId, 1, 5, 1, 1), a);
    const raced = await Promise.all([
      database.runs.takeUserBudgetTurn(a.replyId, a.threadId),
      database.runs.takeUserBudgetTurn(b.replyId, b.threadId),
    ]);
    expect(raced.filter(Boolean)).toHaveLength(1);
    const [holder, other] = raced[0] ? [a, b] : [b, a];

    // A holder waiting for a person holds it no more.
    await db.query(`UPDATE messages SET status = 'requires_action' WHERE id = $1`, [holder.replyId]);
    expect(await database.runs.takeUserBudgetTurn(other.replyId, other.threadId)).toBe(true);
    // Nor one that ended.
    await db.query(`UPDATE messages SET status = 'running' WHERE id = $1`, [holder.replyId]);
    expect(await database.runs.takeUserBudgetTurn(holder.replyId, holder.threadId)).toBe(false);
    await database.runs.finish(other.replyId, outcome, webhookEvent('message.completed', {}));
    expect(await database.runs.takeUserBudgetTurn(holder.replyId, holder.threadId)).toBe(true);

    // A user without a budget has no turn to wait for.
    const free = await liveReply('unbudgeted');
    expect(await database.runs.takeUserBudgetTurn(free.replyId, free.threadId)).toBe(true);
  });

  it('parks a reply that finds the turn held, lets it start only once a give-back hands the turn to it', async () => {
    const budgets = new UserBudgetRepository(db);
    await budgets.put(orgId, 'parkers', 'day', 10_000);
    const [holder, first, second] = [
      await liveReply('parkers'),
      await liveReply('parkers'),
      await liveReply('parkers'),
    ];
    const streamed = { content: 'so far', events: [{ type: 'tool.result', step: 1 }], deltaLengths: [6] };
    const parkedRow = async (replyId: string) =>
      (
        await db.query(
          `SELECT status, live, content, events, delta_lengths, budget_turn_parked_at IS NOT NULL AS parked
           FROM messages WHERE id = $1`,
          [replyId],
        )
      )[0];

    expect(await database.runs.takeUserBudgetTurn(holder.replyId, holder.threadId)).toBe(true);
    expect(await database.runs.parkForUserBudgetTurn(first.replyId, first.threadId, streamed)).toBe('parked');
    expect(await database.runs.parkForUserBudgetTurn(second.replyId, second.threadId, streamed)).toBe(
      'parked',
    );
    // Pending again, with what it streamed, so the gateway's cancel closes it like any pending reply.
    expect(await parkedRow(first.replyId)).toEqual({
      status: 'pending',
      live: true,
      content: 'so far',
      events: [{ type: 'tool.result', step: 1 }],
      delta_lengths: [6],
      parked: true,
    });
    // Not startable while another holds the turn.
    expect(await database.runs.isBlocked(first.replyId, 0)).toBe(true);
    expect((await database.runs.loadAndStart(first.replyId, 0))?.start).toBe('blocked');

    // The holder's step stored: the turn goes to the oldest parked reply, named to be woken; it now holds it.
    const { nextParked } = await database.runs.saveStep(step(holder.replyId, 1, 5, 1, 1), holder);
    expect(nextParked).toEqual({ id: first.replyId, threadId: first.threadId });
    expect(await database.runs.takeUserBudgetTurn(holder.replyId, holder.threadId)).toBe(false);
    expect(await database.runs.isBlocked(second.replyId, 0)).toBe(true);
    expect((await database.runs.loadAndStart(first.replyId, 0))?.start).toBe('started');
    expect(await parkedRow(first.replyId)).toMatchObject({ status: 'running', parked: false });
    expect(await database.runs.takeUserBudgetTurn(first.replyId, first.threadId)).toBe(true);

    // A parked reply handed the turn and then cancelled holds it no more; a give-back of a reply not holding it
    // hands nothing.
    expect(await database.runs.giveBackUserBudgetTurn(holder.replyId)).toBeNull();
    expect(await database.runs.giveBackUserBudgetTurn(first.replyId)).toEqual({
      id: second.replyId,
      threadId: second.threadId,
    });
    await db.transaction((tx) =>
      database.messages.cancelUnheldReply(
        tx,
        { orgId },
        second.replyId,
        webhookEvent('message.cancelled', {}),
      ),
    );
    expect(await database.runs.takeUserBudgetTurn(holder.replyId, holder.threadId)).toBe(true);
    // A reply no longer running is not parked.
    await database.runs.finish(first.replyId, outcome, webhookEvent('message.completed', {}));
    expect(await database.runs.parkForUserBudgetTurn(first.replyId, first.threadId, streamed)).toBe('ended');
  });

  /**
   * Twenty rounds of a race on a user's turn: one reply holds it, a second parks while `giveBack` gives it back;
   * the parking reply must take the turn, or the give-back must name it: never both, never neither.
   */
  async function expectNoParkStranded(
    userPrefix: string,
    giveBack: (holder: Awaited<ReturnType<typeof liveReply>>) => Promise<{ nextParked: unknown } | null>,
  ) {
    const budgets = new UserBudgetRepository(db);
    const streamed = { content: '', events: [], deltaLengths: [] };
    for (let round = 0; round < 20; round++) {
      const userId = `${userPrefix}-${round}`;
      await budgets.put(orgId, userId, 'day', 10_000);
      const [holder, parker] = [await liveReply(userId), await liveReply(userId)];
      expect(await database.runs.takeUserBudgetTurn(holder.replyId, holder.threadId)).toBe(true);
      const [parked, givenBack] = await Promise.all([
        database.runs.parkForUserBudgetTurn(parker.replyId, parker.threadId, streamed),
        giveBack(holder),
      ]);
      if (parked === 'taken') expect(givenBack?.nextParked).toBeNull();
      else {
        expect(parked).toBe('parked');
        expect(givenBack?.nextParked).toEqual({ id: parker.replyId, threadId: parker.threadId });
      }
    }
  }

  it('never strands a reply parking while the turn is given back: it takes the turn, or the give-back names it', () =>
    expectNoParkStranded('racing-park', (holder) =>
      database.runs.saveStep(step(holder.replyId, 1, 5, 1, 1), holder),
    ));

  it("hands the turn a run held as it ends to the user's oldest parked reply, named by the ending statement itself", async () => {
    const budgets = new UserBudgetRepository(db);
    await budgets.put(orgId, 'enders', 'day', 10_000);
    const streamed = { content: '', events: [], deltaLengths: [] };
    const [holder, parked, other] = [
      await liveReply('enders'),
      await liveReply('enders'),
      await liveReply('enders'),
    ];
    expect(await database.runs.takeUserBudgetTurn(holder.replyId, holder.threadId)).toBe(true);
    expect(await database.runs.parkForUserBudgetTurn(parked.replyId, parked.threadId, streamed)).toBe(
      'parked',
    );

    // The holder's last model call is stored with its end: the same statement gives the turn back and names the
    // parked reply, which may start at once and holds the turn now.
    const finished = await database.runs.finish(
      holder.replyId,
      outcome,
      webhookEvent('message.completed', {}),
      step(holder.replyId, 1, 5, 1, 0),
    );
    expect(finished?.nextParked).toEqual({ id: parked.replyId, threadId: parked.threadId });
    expect(await database.runs.takeUserBudgetTurn(other.replyId, other.threadId)).toBe(false);
    expect((await database.runs.loadAndStart(parked.replyId, 0))?.start).toBe('started');

    // An ending of a reply holding no turn hands nothing on, nor does a second ending of the same reply.
    expect(
      (await database.runs.finish(other.replyId, outcome, webhookEvent('message.completed', {})))?.nextParked,
    ).toBeNull();
    expect(
      await database.runs.finish(holder.replyId, outcome, webhookEvent('message.completed', {})),
    ).toBeNull();
    expect(await database.runs.takeUserBudgetTurn(parked.replyId, parked.threadId)).toBe(true);
  });

  it('never strands a reply parking while the run holding the turn ends: it takes the turn, or the ending names it', () =>
    expectNoParkStranded('racing-end', (holder) =>
      database.runs.finish(
        holder.replyId,
        outcome,
        webhookEvent('message.completed', {}),
        step(holder.replyId, 1, 5, 1, 0),
      ),
    ));

  it('counts a reply cancelled while it waits, or before it starts, once, as the end of a run is counted', async () => {
    const waiting = await liveReply('cancelled');
    await database.runs.saveStep(step(waiting.replyId, 1, 30, 5, 1), waiting);
    await db.query(`UPDATE messages SET status = 'requires_action' WHERE id = $1`, [waiting.replyId]);
    const pending = await liveReply('cancelled', false);
    const [before] = await db.query(`SELECT count(*)::int AS n FROM token_usage_pending`);

    const cancelUnheld = (threadId: string) =>
      db.transaction(async (tx) => {
        const cancelled = [];
        for (const reply of await database.messages.lockUnheldReplies(tx, { orgId }, threadId)) {
          cancelled.push(
            await database.messages.cancelUnheldReply(
              tx,
              { orgId },
              reply.id,
              webhookEvent('message.cancelled', {}),
            ),
          );
        }
        return cancelled;
      });
    for (const reply of [waiting, pending]) {
      const cancelled = await cancelUnheld(reply.threadId);
      expect(cancelled.map((row) => row?.id)).toEqual([reply.replyId]);
    }
    // Cancelling again ends nothing and counts nothing.
    expect(await cancelUnheld(waiting.threadId)).toEqual([]);

    const [row] = await db.query(
      `SELECT status, usage_tokens, input_tokens, output_tokens, tool_calls, model FROM messages WHERE id = $1`,
      [waiting.replyId],
    );
    expect(row).toEqual({
      status: 'cancelled',
      usage_tokens: 35,
      input_tokens: 30,
      output_tokens: 5,
      tool_calls: 1,
      model: 'builtin',
    });
    const [after] = await db.query(`SELECT count(*)::int AS n FROM token_usage_pending`);
    expect(after.n - before.n).toBe(1);
    const today = new Date().toISOString().slice(0, 10);
    expect(await usage.sums({ orgId, from: today, to: today, groupBy: 'user', userId: 'cancelled' })).toEqual(
      [expect.objectContaining({ key: 'cancelled', replies: 2, inputTokens: 30, outputTokens: 5 })],
    );
    await database.runs.foldTokenUsage();
    const [agent] = await db.query(`SELECT tokens_used::int AS n FROM agents WHERE id = $1`, [
      agents.builtin,
    ]);
    expect(agent.n).toBeGreaterThanOrEqual(35);
  });

  /** A live reply of `userId` to the builtin agent in a thread of its own, started unless `start` is false. */
  async function liveReply(userId: string, start = true) {
    const thread = database.threads.build(
      { orgId, userId },
      { agentId: agents.builtin, name: 't', projectId: null, memoryNamespace: null },
    );
    const { reply: row } = await database.messages.startThread({ orgId: thread.orgId }, thread, {
      message: { content: 'hi', fileIds: [], sourceIds: null, documentIds: null, disabledTools: null },
      reply: { agentId: agents.builtin, maxSteps: 5 },
    });
    if (start) await database.runs.loadAndStart(row.id, 100);
    return { threadId: thread.id, agentId: agents.builtin, replyId: row.id };
  }
});
