import { Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ModelProvider } from '@app/agent';
import { Settings } from '@app/config';
import { AgentRunJob } from '@app/contracts';
import {
  AgentEntity,
  AgentRepository,
  EvalRepository,
  EvalRunItem,
  EvalScore,
  JudgingEvalItem,
  MessageEntity,
  MessageRepository,
  NewExchange,
  RunGate,
  RunningEvalRun,
  RunRepository,
  Scope,
  ThreadEntity,
  ThreadRepository,
  UsageRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { EvalRunner } from './eval-runner';

const RUN: RunningEvalRun = {
  id: 'run-1',
  orgId: 'org-1',
  agentId: 'agent-1',
  agentVersion: 3,
  judgeModel: null,
};
const JUDGE_TIMEOUT_MS = 1000;

type ModelCallSpend = Parameters<UsageRepository['recordModelCall']>[0];

type ItemState = 'waiting' | 'answering' | 'judging' | 'scored';

interface StoredItem extends EvalRunItem {
  state: ItemState;
  claim: string | null;
  claimedAt: number;
}

interface StoredReply {
  live: boolean;
  status: string;
  content: string;
  thread: ThreadEntity;
  agentVersion: number | null;
}

/**
 * An evaluation run's rows in memory, as EvalRepository keeps them: its items go waiting → answering (their
 * thread and reply stored) → judging (claimed, once their reply ended) → scored (only under the claim they were
 * judged by); a claim older than asked is taken back. Replies are stored as MessageRepository.startThread stores
 * them; `end` ends one as its run would.
 */
class MemoryEvals {
  now = 1_000_000;
  runDone = false;
  /** Another worker holds the run's row lock now. */
  lockedElsewhere = false;
  readonly items: StoredItem[];
  readonly replies = new Map<string, StoredReply>();
  private claims = 0;
  private ids = 0;

  constructor(expected: (Record<string, string> | null)[]) {
    this.items = expected.map((wanted, position) => ({
      position,
      input: { content: `question ${position}` },
      expected: wanted,
      reference: null,
      threadId: null,
      replyId: null,
      output: null,
      scores: null,
      passed: null,
      inputTokens: 0,
      outputTokens: 0,
      state: 'waiting',
      claim: null,
      claimedAt: 0,
    }));
  }

  item(position: number): StoredItem {
    return this.items[position];
  }

  states(): ItemState[] {
    return this.items.map((item) => item.state);
  }

  /** The item's reply ends as its run would end it. */
  end(position: number, status: 'success' | 'error', content: string): void {
    Object.assign(this.replies.get(this.item(position).replyId!)!, { live: false, status, content });
  }

  readonly repository = {
    runningRuns: () => Promise.resolve(this.runDone ? [] : [RUN]),
    lockRunning: (_tx: EntityManager, id: string) =>
      Promise.resolve(id === RUN.id && !this.runDone && !this.lockedElsewhere),
    claimEnded: (_runId: string, staleAfterMs: number) => {
      const claimed: JudgingEvalItem[] = [];
      for (const item of this.items) {
        const reply = item.replyId ? this.replies.get(item.replyId) : undefined;
        const ended = item.state === 'answering' && reply !== undefined && !reply.live;
        const stale = item.state === 'judging' && this.now - item.claimedAt > staleAfterMs;
        if (!ended && !stale) continue;
        Object.assign(item, { state: 'judging', claim: `claim-${++this.claims}`, claimedAt: this.now });
        claimed.push({
          ...item,
          claim: item.claim!,
          replyStatus: reply!.status,
          replyContent: reply!.content,
          toolsCalled: [],
          replyInputTokens: 5,
          replyOutputTokens: 2,
        });
      }
      return Promise.resolve(claimed);
    },
    saveScores: (
      _runId: string,
      judging: JudgingEvalItem,
      scored: { scores: Record<string, EvalScore>; passed: boolean },
      judged: { inputTokens: number; outputTokens: number },
    ) => {
      const item = this.item(judging.position);
      if (item.state !== 'judging' || item.claim !== judging.claim) return Promise.resolve(false);
      Object.assign(item, {
        state: 'scored',
        scores: scored.scores,
        passed: scored.passed,
        output: judging.replyContent,
        inputTokens: judging.replyInputTokens + judged.inputTokens,
        outputTokens: judging.replyOutputTokens + judged.outputTokens,
      });
      return Promise.resolve(true);
    },
    inFlight: () =>
      Promise.resolve(
        this.items.filter((item) => item.state === 'answering' || item.state === 'judging').length,
      ),
    unstarted: (_tx: EntityManager, _runId: string, limit: number) =>
      Promise.resolve(this.items.filter((item) => item.state === 'waiting').slice(0, limit)),
    markStarted: (
      _tx: EntityManager,
      _runId: string,
      position: number,
      threadId: string,
      replyId: string,
    ) => {
      Object.assign(this.item(position), { state: 'answering', threadId, replyId });
      return Promise.resolve();
    },
    finishIfScored: () => {
      if (this.runDone || this.items.some((item) => item.state !== 'scored')) return Promise.resolve(false);
      this.runDone = true;
      return Promise.resolve(true);
    },
  } as unknown as EvalRepository;

  readonly threads = {
    build: (scope: Scope, values: Partial<ThreadEntity>) =>
      Object.assign(new ThreadEntity(), {
        id: `thread-${++this.ids}`,
        orgId: scope.orgId,
        userId: scope.userId,
        ...values,
      }),
  } as unknown as ThreadRepository;

  readonly messages = {
    startThread: (_scope: Scope, thread: ThreadEntity, exchange: NewExchange) => {
      const id = `reply-${++this.ids}`;
      this.replies.set(id, {
        live: true,
        status: 'pending',
        content: '',
        thread,
        agentVersion: exchange.reply.agentVersion ?? null,
      });
      return Promise.resolve({ reply: Object.assign(new MessageEntity(), { id, threadId: thread.id }) });
    },
    orgBacklogBefore: () => Promise.resolve(0),
  } as unknown as MessageRepository;
}

/** A judge model that answers `verdict`, spending 10 tokens in and 3 out. */
function judgeAnswering(verdict: string, asked: string[]): ModelProvider {
  return {
    languageModel: (model: string) => ({
      doGenerate: () => {
        asked.push(model);
        return Promise.resolve({
          content: [{ type: 'text', text: verdict }],
          usage: { inputTokens: { total: 10, cacheRead: 0 }, outputTokens: { total: 3 } },
        });
      },
    }),
  } as unknown as ModelProvider;
}

function world(
  expected: (Record<string, string> | null)[],
  options: { inFlight?: number; verdict?: string; userBudget?: RunGate['userBudget'] } = {},
) {
  const evals = new MemoryEvals(expected);
  const enqueued: AgentRunJob[] = [];
  const judgeAsked: string[] = [];
  const spent: ModelCallSpend[] = [];
  const timeline: string[] = [];
  const db = {
    transaction: async <T>(work: (tx: EntityManager) => Promise<T>) => {
      timeline.push('begin');
      const result = await work({} as EntityManager);
      timeline.push('commit');
      return result;
    },
  } as unknown as DataSource;
  const settings = Object.assign(new Settings(), {
    evalItemsInFlight: options.inFlight ?? 2,
    evalJudgeTimeoutMs: JUDGE_TIMEOUT_MS,
  });
  const agents = {
    findById: (id: string) =>
      Promise.resolve(id === RUN.agentId ? Object.assign(new AgentEntity(), { id, orgId: RUN.orgId }) : null),
  } as unknown as AgentRepository;
  const agentRuns = {
    enqueue: (job: AgentRunJob) => (
      timeline.push(`enqueue ${job.messageId}`),
      enqueued.push(job),
      Promise.resolve()
    ),
  } as unknown as AgentRunQueue;
  const runs = {
    gate: () =>
      Promise.resolve({
        archived: false,
        agentBudget: null,
        organizationBudget: null,
        userBudget: options.userBudget ?? null,
      }),
  } as unknown as RunRepository;
  const usage = {
    recordModelCall: (spend: ModelCallSpend) => (spent.push(spend), Promise.resolve()),
  } as unknown as UsageRepository;
  const runner = new EvalRunner(
    db,
    settings,
    evals.repository,
    agents,
    evals.threads,
    evals.messages,
    agentRuns,
    judgeAnswering(options.verdict ?? 'yes, it is polite', judgeAsked),
    runs,
    usage,
  );
  return { runner, evals, enqueued, judgeAsked, spent, timeline };
}

describe('EvalRunner', () => {
  it('starts the waiting items in order up to the run’s items in flight, each an eval thread pinned to its version', async () => {
    const { runner, evals, enqueued, timeline } = world([null, null, null], { inFlight: 2 });

    await runner.tick();

    expect(evals.states()).toEqual(['answering', 'answering', 'waiting']);
    const [first] = evals.items;
    const reply = evals.replies.get(first.replyId!)!;
    expect(reply.agentVersion).toBe(3);
    expect(reply.thread).toMatchObject({
      id: first.threadId,
      userId: 'eval:run-1',
      inception: 'eval',
      name: 'eval run-1 #1',
    });
    // Enqueued once the items are marked started: a worker never runs a reply that is not stored.
    expect(timeline).toEqual([
      'begin',
      'commit',
      `enqueue ${first.replyId}`,
      `enqueue ${evals.item(1).replyId}`,
    ]);
    expect(enqueued.map((job) => job.threadId)).toEqual([first.threadId, evals.item(1).threadId]);
  });

  it('scores an item by its checks once its reply ended, and gives its slot to the next item in the same pass', async () => {
    const { runner, evals } = world([{ contains: 'Paris' }, { equals: 'four' }, null], { inFlight: 2 });
    await runner.tick();

    evals.end(0, 'success', 'It is Paris.');
    await runner.tick();

    expect(evals.states()).toEqual(['scored', 'answering', 'answering']);
    expect(evals.item(0)).toMatchObject({
      passed: true,
      scores: { contains: { passed: true } },
      output: 'It is Paris.',
      inputTokens: 5,
      outputTokens: 2,
    });
  });

  it('fails an item whose reply failed, whatever its content', async () => {
    const { runner, evals } = world([{ contains: 'Paris' }]);
    await runner.tick();

    evals.end(0, 'error', 'Paris, before the model failed');
    await runner.tick();

    expect(evals.item(0)).toMatchObject({
      state: 'scored',
      passed: false,
      scores: { contains: { passed: true } },
    });
  });

  it('closes the run once every item is scored, and then leaves it alone', async () => {
    const { runner, evals, enqueued } = world([null, null], { inFlight: 2 });
    await runner.tick();
    evals.end(0, 'success', 'a');
    await runner.tick();
    expect(evals.runDone).toBe(false);

    evals.end(1, 'success', 'b');
    await runner.tick();
    expect(evals.runDone).toBe(true);

    await runner.tick();
    expect(enqueued).toHaveLength(2);
  });

  it('asks the run’s judge about a rubric, and counts what the judge spent to the eval’s end user and the item', async () => {
    const { runner, evals, judgeAsked, spent } = world([{ rubric: 'is polite' }], {
      verdict: 'no - it is curt',
    });
    await runner.tick();
    evals.end(0, 'success', 'Go away.');

    await runner.tick();
    // The judge runs in the background: the worker's shutdown waits for it.
    await runner.beforeApplicationShutdown();

    expect(judgeAsked).toEqual(['builtin']);
    expect(evals.item(0)).toMatchObject({
      state: 'scored',
      passed: false,
      scores: { rubric: { passed: false, reason: 'it is curt' } },
      inputTokens: 5 + 10,
      outputTokens: 2 + 3,
    });
    expect(spent).toEqual([
      expect.objectContaining({ userId: 'eval:run-1', agentId: 'agent-1', inputTokens: 10, outputTokens: 3 }),
    ]);
  });

  it('asks no judge once the end user’s budget is spent: the rubric fails, saying why', async () => {
    const { runner, evals, judgeAsked } = world([{ rubric: 'is polite' }], {
      userBudget: { limit: 10, used: 10 },
    });
    await runner.tick();
    evals.end(0, 'success', 'Hello!');

    await runner.tick();
    await runner.beforeApplicationShutdown();

    expect(judgeAsked).toEqual([]);
    expect(evals.item(0).scores).toEqual({
      rubric: { passed: false, reason: 'the token budget is spent: no judge was asked' },
    });
  });

  it('takes back a claim older than twice the judge’s timeout (its worker died judging): the item is scored once, by the new claim', async () => {
    const { runner, evals } = world([{ contains: 'x' }]);
    await runner.tick();
    evals.end(0, 'success', 'x');
    // Another worker claimed it, then died before storing a score.
    const [lost] = await evals.repository.claimEnded(RUN.id, 2 * JUDGE_TIMEOUT_MS);

    evals.now += 2 * JUDGE_TIMEOUT_MS;
    await runner.tick();
    expect(evals.item(0).state).toBe('judging');

    evals.now += 1;
    await runner.tick();
    expect(evals.item(0)).toMatchObject({ state: 'scored', passed: true });
    // The dead worker's claim, should it come back, stores nothing.
    expect(
      await evals.repository.saveScores(
        RUN.id,
        lost,
        { scores: {}, passed: false },
        { inputTokens: 0, outputTokens: 0 },
      ),
    ).toBe(false);
    expect(evals.item(0).passed).toBe(true);
  });

  it('starts nothing while another worker holds the run, but still scores what ended', async () => {
    const { runner, evals } = world([null, null, null], { inFlight: 1 });
    await runner.tick();
    evals.end(0, 'success', 'done');
    evals.lockedElsewhere = true;

    await runner.tick();

    expect(evals.states()).toEqual(['scored', 'waiting', 'waiting']);
  });

  it('survives a pass that fails: logged, the next tick tries again', async () => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { runner, evals } = world([null]);
      const runningRuns = evals.repository.runningRuns.bind(evals.repository);
      evals.repository.runningRuns = () => Promise.reject(new Error('database restarting'));

      await expect(runner.tick()).resolves.toBeUndefined();
      expect(warned).toHaveBeenCalledWith(
        expect.anything(),
        'eval runs not advanced; the next tick tries again',
      );

      evals.repository.runningRuns = runningRuns;
      await runner.tick();
      expect(evals.states()).toEqual(['answering']);
    } finally {
      warned.mockRestore();
    }
  });
});
