import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { webhookEvent } from '@app/contracts';
import { EvalRepository, JudgingEvalItem } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * Scoring an eval run's items on real PostgreSQL (CONTRACTS §23): an ended item is claimed into `judging` by one
 * statement, once however many workers claim at once; its score is stored only under that claim, once; a claim
 * older than the deadline is taken back, after which the old claim stores nothing.
 */
describe('eval items: judging claims', () => {
  const database = useTestDatabase(4);
  let db: DataSource;
  let evals: EvalRepository;
  const orgId = randomUUID();
  const agentId = randomUUID();
  const scored = { scores: { contains: { passed: true } }, passed: true };
  const noJudge = { inputTokens: 0, outputTokens: 0 };

  beforeAll(async () => {
    db = database.db;
    evals = new EvalRepository(db);
    await db.query(`INSERT INTO organizations (id, name) VALUES ($1, 'evals')`, [orgId]);
    await db.query(`INSERT INTO agents (id, org_id, name) VALUES ($1, $2, 'a')`, [agentId, orgId]);
  });

  /** A run of `count` items, each started as the runner starts them, and its replies ended. */
  async function runWithEndedItems(count: number): Promise<string> {
    const scope = { orgId };
    const items = Array.from({ length: count }, (_, index) => ({
      input: { content: `item ${index}` },
      expected: { contains: 'item' },
      reference: null,
    }));
    const dataset = await evals.createDataset(scope, 'd', items);
    const runId = (await evals.createRun(scope, {
      datasetId: dataset.id,
      agentId,
      agentVersion: 1,
      judgeModel: null,
    }))!;
    const replies = await db.transaction(async (tx) => {
      expect(await evals.lockRunning(tx, runId)).toBe(true);
      const started = [];
      for (const item of await evals.unstarted(tx, runId, count)) {
        const thread = database.threads.build(
          { orgId, userId: `eval:${runId}` },
          { agentId, name: 't', projectId: null, memoryNamespace: null, inception: 'eval' },
        );
        const { reply } = await database.messages.startThread(
          { orgId },
          thread,
          {
            message: { content: 'x', fileIds: [], sourceIds: null, documentIds: null, disabledTools: null },
            reply: { agentId, maxSteps: 2 },
          },
          tx,
        );
        await evals.markStarted(tx, runId, item.position, thread.id, reply.id);
        started.push(reply);
      }
      return started;
    });
    for (const reply of replies) {
      await database.runs.finish(
        reply.id,
        {
          status: 'success',
          content: 'item answered',
          errorCode: null,
          questions: null,
          structuredOutput: null,
          events: [],
          deltaLengths: [13],
        },
        webhookEvent('message.completed', { id: reply.id }),
      );
    }
    return runId;
  }

  const states = async (runId: string) =>
    (
      (await db.query(`SELECT state FROM eval_run_items WHERE run_id = $1 ORDER BY position`, [runId])) as {
        state: string;
      }[]
    ).map((row) => row.state);

  it('claims each ended item once however many claim at once, and stores its score once', async () => {
    const runId = await runWithEndedItems(6);
    expect(await states(runId)).toEqual(Array(6).fill('answering'));

    const claims = await Promise.all(Array.from({ length: 4 }, () => evals.claimEnded(runId, 60_000)));
    const claimed = claims.flat();
    expect(claimed.map((item) => item.position).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(claimed[0]).toMatchObject({
      replyStatus: 'success',
      replyContent: 'item answered',
      toolsCalled: [],
    });
    expect(await states(runId)).toEqual(Array(6).fill('judging'));
    // Claimed within the deadline: no one takes them.
    expect(await evals.claimEnded(runId, 60_000)).toEqual([]);

    for (const item of claimed) expect(await evals.saveScores(runId, item, scored, noJudge)).toBe(true);
    expect(await evals.saveScores(runId, claimed[0], scored, noJudge)).toBe(false);
    expect(await states(runId)).toEqual(Array(6).fill('scored'));
    expect(await evals.claimEnded(runId, 0)).toEqual([]);
    expect(await db.transaction((tx) => evals.finishIfScored(tx, runId))).toBe(true);
  });

  it('takes back a claim past the deadline, after which only the new claim stores the score', async () => {
    const runId = await runWithEndedItems(1);
    const [first] = await evals.claimEnded(runId, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const [second]: JudgingEvalItem[] = await evals.claimEnded(runId, 10);
    expect(second).toMatchObject({ position: 0 });
    expect(second.claim).not.toBe(first.claim);

    expect(await evals.saveScores(runId, first, scored, { inputTokens: 100, outputTokens: 20 })).toBe(false);
    expect(await evals.saveScores(runId, second, scored, { inputTokens: 100, outputTokens: 20 })).toBe(true);
    const found = await evals.findRun({ orgId }, runId);
    // The item's cost holds its judge's tokens once.
    expect(found!.items[0]).toMatchObject({ passed: true, inputTokens: 100, outputTokens: 20 });
  });
});
