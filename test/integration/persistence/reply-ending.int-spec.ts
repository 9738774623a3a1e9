import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { webhookEvent, WebhookEvent, WebhookEventType } from '@app/contracts';
import { MessageEntity, ReplyOutcome, RunStepEntity, WebhookRepository } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * Every way a reply ends (sql/reply-ending: a run's end by its worker, a cancel of a reply no run holds) has the
 * same effects on real PostgreSQL: the row closed, its usage counted once, its stream journal dropped, its end
 * queued for webhooks; and a reply once ended is ended by no way again.
 */
describe('every way a reply ends', () => {
  const database = useTestDatabase();
  let db: DataSource;
  const orgId = randomUUID();
  const agentId = randomUUID();
  const ENDED_TYPES: WebhookEventType[] = ['message.completed', 'message.failed', 'message.cancelled'];

  beforeAll(async () => {
    db = database.db;
    await database.addOrganizations(orgId);
    await db.query(`INSERT INTO agents (id, org_id, name, model) VALUES ($1, $2, 'a', 'builtin')`, [
      agentId,
      orgId,
    ]);
    await new WebhookRepository(db).create(
      { orgId },
      { url: 'http://h/x', events: ENDED_TYPES, description: null, active: true, secretEncrypted: 'x' },
    );
  });

  const step = (messageId: string, number: number, input: number, output: number) =>
    Object.assign(new RunStepEntity(), {
      messageId,
      step: number,
      text: `step ${number}`,
      toolCalls: [{ callId: `c${number}`, name: 'clock', arguments: {} }],
      questions: null,
      structuredOutput: null,
      usageTokens: input + output,
      outputTokens: output,
      contentLength: 6,
      deltaLengths: [6],
      streamedText: null,
      model: 'builtin',
      startedAt: new Date(),
    });

  const outcome = (status: ReplyOutcome['status']): ReplyOutcome => ({
    status,
    content: 'step 1step 2',
    errorCode: null,
    questions: null,
    structuredOutput: null,
    events: [],
    deltaLengths: [6, 6],
  });

  /**
   * A reply of its own end user `userId`, in the state `state` (`running` and `requires_action` after a first
   * step of 10 + 5 tokens was stored and a batch of its lines journaled).
   */
  async function reply(userId: string, state: 'pending' | 'running' | 'requires_action') {
    const thread = database.threads.build(
      { orgId, userId },
      { agentId, name: 't', projectId: null, memoryNamespace: null },
    );
    const { reply: row } = await database.messages.startThread({ orgId }, thread, {
      message: { content: 'hi', fileIds: [], sourceIds: null, documentIds: null, disabledTools: null },
      reply: { agentId, maxSteps: 5 },
    });
    if (state !== 'pending') {
      await database.runs.loadAndStart(row.id, 0);
      await database.runs.saveStep(step(row.id, 1, 10, 5), { threadId: thread.id, agentId });
      await database.runs.journal([{ messageId: row.id, firstSeq: 1, lines: '{"seq":1}' }]);
    }
    if (state === 'requires_action') {
      await db.query(`UPDATE messages SET status = 'requires_action' WHERE id = $1`, [row.id]);
    }
    return row;
  }

  /** Cancels the reply as the gateway's cancel paths do (chat.rules' cancelPendingReplies). */
  const cancelUnheld = (reply: MessageEntity, event: WebhookEvent) =>
    db.transaction(async (tx) => {
      const [unheld] = await database.messages.lockUnheldReplies(tx, { orgId }, reply.threadId, reply.id);
      return unheld ? database.messages.cancelUnheldReply(tx, { orgId }, unheld.id, event) : null;
    });

  /** What an ending left of a reply: its row, its journal, its webhook deliveries, its counted usage. */
  async function traces(reply: MessageEntity, userId: string) {
    const [row] = await db.query(
      `SELECT status, live, completed_at IS NOT NULL AS completed, usage_tokens, input_tokens, output_tokens,
         tool_calls, model, content FROM messages WHERE id = $1`,
      [reply.id],
    );
    const [counts] = await db.query(
      `SELECT (SELECT count(*)::int FROM run_stream_journal WHERE message_id = $1) AS journal,
         (SELECT count(*)::int FROM webhook_deliveries WHERE payload #>> '{data,id}' = $1::text) AS deliveries,
         (SELECT count(*)::int FROM token_usage_pending WHERE message_id = $1) AS pending_tokens,
         (SELECT COALESCE(sum(replies), 0)::int FROM usage_daily WHERE org_id = $2 AND user_id = $3) AS replies,
         (SELECT COALESCE(sum(input_tokens + output_tokens), 0)::int FROM usage_daily
           WHERE org_id = $2 AND user_id = $3) AS tokens`,
      [reply.id, orgId, userId],
    );
    return { row, ...counts };
  }

  const eventOf = (type: WebhookEventType, reply: MessageEntity) => webhookEvent(type, { id: reply.id });

  /** Tokens and tool calls a reply spent. */
  interface Spent {
    input: number;
    output: number;
    toolCalls: number;
  }
  const FIRST_STEP: Spent = { input: 10, output: 5, toolCalls: 1 };
  const NOTHING: Spent = { input: 0, output: 0, toolCalls: 0 };

  /** What every ending leaves: the row closed as `status` with `content`, `spent` counted once, one report. */
  const ended = (status: string, spent: Spent, content: string) => ({
    row: {
      status,
      live: false,
      completed: true,
      usage_tokens: spent.input + spent.output,
      input_tokens: spent.input,
      output_tokens: spent.output,
      tool_calls: spent.toolCalls,
      model: 'builtin',
      content,
    },
    journal: 0,
    deliveries: 1,
    pending_tokens: spent.input + spent.output > 0 ? 1 : 0,
    replies: 1,
    tokens: spent.input + spent.output,
  });

  it("ends a running reply by its run's end, its last step stored and counted with it", async () => {
    const running = await reply('run-end', 'running');
    const finished = await database.runs.finish(
      running.id,
      outcome('success'),
      eventOf('message.completed', running),
      step(running.id, 2, 4, 3),
    );

    expect(finished).toEqual({ nextReplyId: null, nextOfOrg: null, nextParked: null });
    expect(await traces(running, 'run-end')).toEqual(
      ended('success', { input: 14, output: 8, toolCalls: 2 }, 'step 1step 2'),
    );
  });

  it('ends a running reply cancelled by its run, with no last step, as the cancel of a waiting one ends', async () => {
    const running = await reply('run-cancel', 'running');
    const waiting = await reply('wait-cancel', 'requires_action');

    expect(
      await database.runs.finish(running.id, outcome('cancelled'), eventOf('message.cancelled', running)),
    ).not.toBeNull();
    const closed = await cancelUnheld(waiting, eventOf('message.cancelled', waiting));

    expect(closed).toMatchObject({ id: waiting.id, status: 'cancelled', live: false, usageTokens: 15 });
    expect(await traces(running, 'run-cancel')).toEqual(ended('cancelled', FIRST_STEP, 'step 1step 2'));
    // The waiting reply keeps the content it held: no run wrote a final one.
    expect(await traces(waiting, 'wait-cancel')).toEqual(ended('cancelled', FIRST_STEP, ''));
  });

  it('ends a pending reply by a cancel: counted as a reply of no tokens, reported once', async () => {
    const pending = await reply('pending-cancel', 'pending');

    expect(await cancelUnheld(pending, eventOf('message.cancelled', pending))).toMatchObject({
      id: pending.id,
      status: 'cancelled',
    });
    expect(await traces(pending, 'pending-cancel')).toEqual(ended('cancelled', NOTHING, ''));
  });

  it('never ends a reply twice, whichever way comes second, and never cancels one its run holds', async () => {
    const running = await reply('twice', 'running');
    // A running reply is its worker's: the cancel of replies no run holds leaves it live.
    expect(
      await db.transaction((tx) =>
        database.messages.cancelUnheldReply(tx, { orgId }, running.id, eventOf('message.cancelled', running)),
      ),
    ).toBeNull();
    expect((await traces(running, 'twice')).row).toMatchObject({ status: 'running', live: true });

    expect(
      await database.runs.finish(running.id, outcome('error'), eventOf('message.failed', running)),
    ).not.toBeNull();
    const once = await traces(running, 'twice');
    expect(once).toEqual(ended('error', FIRST_STEP, 'step 1step 2'));

    expect(
      await database.runs.finish(running.id, outcome('success'), eventOf('message.completed', running)),
    ).toBeNull();
    expect(
      await db.transaction((tx) =>
        database.messages.cancelUnheldReply(tx, { orgId }, running.id, eventOf('message.cancelled', running)),
      ),
    ).toBeNull();
    expect(await traces(running, 'twice')).toEqual(once);
  });
});
