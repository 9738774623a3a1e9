import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isRunOverBudget, ModelProvider } from '@app/agent';
import { maxStepsOf, Settings } from '@app/config';
import { enqueueStoredReply, exchangeOf } from '@app/chat';
import { HumanMessageDto } from '@app/contracts';
import { asksJudge, JUDGE_INSTRUCTIONS, judgePrompt, scoreReply, verdictOf } from '@app/evals';
import {
  AgentRepository,
  EvalRepository,
  EvalRunItem,
  EvalScore,
  JudgingEvalItem,
  MessageEntity,
  MessageRepository,
  RunningEvalRun,
  RunRepository,
  ThreadRepository,
  UsageRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';

/** How often each worker looks at the running runs: the pace at which a run refills its items in flight. */
const TICK_MS = 250;

/**
 * Runs evaluations (CONTRACTS §23) on the workers. Each item is an ordinary reply in a thread of
 * `inception: "eval"`, run by the `agent-run` consumers like any other, pinned to the run's agent version; its
 * thread and reply are stored in the same transaction that marks the item started, so an item is run once
 * whatever process dies when (a reply that lost its worker resumes as every reply does). Every tick, a worker
 * claims the items whose replies ended into `judging` and scores them with no lock or transaction held (a slow
 * judge model holds up only its own item); then, under the run's row lock, it starts the next items up to
 * EVAL_ITEMS_IN_FLIGHT (a run adds at most that many to its organization's backlog, which orders the run queue's
 * fair share, so live users wait behind no more), and closes the run when every item is scored.
 */
@Injectable()
export class EvalRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(EvalRunner.name);
  private timer?: NodeJS.Timeout;
  private ticking = false;
  /** The scorings this worker has going, judges being asked among them. */
  private readonly scorings = new Set<Promise<void>>();

  constructor(
    private readonly db: DataSource,
    private readonly settings: Settings,
    private readonly evals: EvalRepository,
    private readonly agents: AgentRepository,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agentRuns: AgentRunQueue,
    private readonly models: ModelProvider,
    private readonly runs: RunRepository,
    private readonly usage: UsageRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref();
  }

  /**
   * A stopping worker starts nothing more and finishes the scorings it has going, while the database is still
   * open; the process's shutdown deadline bounds the wait, and an item whose scoring it cuts is judged again later.
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.scorings);
  }

  /** One pass over the running runs; a pass still going when the next is due lets it pass. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      for (const run of await this.evals.runningRuns()) await this.advance(run);
    } catch (error) {
      this.logger.warn({ err: error }, 'eval runs not advanced; the next tick tries again');
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Scores the run's ended items, then starts and closes what it can under its row lock; the replies started go
   * out after. Items that only need checks are stored before the run's slots are counted, so theirs free at once;
   * an item whose rubric asks a judge is scored in the background and frees its slot when the judge has answered.
   * A claim older than twice the judge's timeout is taken back: its worker died judging it.
   */
  async advance(run: RunningEvalRun): Promise<void> {
    for (const item of await this.evals.claimEnded(run.id, 2 * this.settings.evalJudgeTimeoutMs)) {
      const scoring = this.score(run, item);
      this.scorings.add(scoring);
      void scoring.finally(() => this.scorings.delete(scoring));
      if (!asksJudge(item.expected)) await scoring;
    }
    const started = await this.db.transaction(async (tx) => {
      if (!(await this.evals.lockRunning(tx, run.id))) return [];
      const room = this.settings.evalItemsInFlight - (await this.evals.inFlight(tx, run.id));
      const next = room > 0 ? await this.evals.unstarted(tx, run.id, room) : [];
      const replies = next.length > 0 ? await this.start(tx, run, next) : [];
      if (await this.evals.finishIfScored(tx, run.id)) this.logger.log({ runId: run.id }, 'eval run done');
      return replies;
    });
    for (const reply of started) {
      await enqueueStoredReply(this.agentRuns, this.messages, this.logger, { orgId: run.orgId }, reply);
    }
  }

  /**
   * Scores a judging item and stores its scores under its claim. Never throws: an item not stored stays judging
   * until its claim is taken back.
   */
  private async score(run: RunningEvalRun, item: JudgingEvalItem): Promise<void> {
    try {
      const judged = { inputTokens: 0, outputTokens: 0 };
      const scored = await scoreReply(
        item.expected,
        {
          succeeded: item.replyStatus === 'success',
          output: item.replyContent,
          toolsCalled: item.toolsCalled,
        },
        (rubric, output) => this.judge(run, item, judged, rubric, output),
      );
      if (!(await this.evals.saveScores(run.id, item, scored, judged)))
        this.logger.warn(
          { runId: run.id, position: item.position },
          'eval item claimed again while this worker judged it; that claim stores its score',
        );
    } catch (error) {
      this.logger.warn(
        { err: error, runId: run.id, position: item.position },
        'eval item not scored; it is judged again once its claim is taken back',
      );
    }
  }

  /** Stores each item's thread and pending reply, pinned to the run's version, and marks the item started. */
  private async start(
    tx: EntityManager,
    run: RunningEvalRun,
    items: EvalRunItem[],
  ): Promise<MessageEntity[]> {
    // The agent as stored (archived ones too: a run started before the archive ends); its version is pinned.
    const agent = await this.agents.findById(run.agentId, tx);
    if (!agent) throw new Error(`eval run ${run.id}: agent ${run.agentId} is gone`);
    const replies: MessageEntity[] = [];
    const scope = { orgId: run.orgId, userId: evalUserOf(run) };
    for (const item of items) {
      const thread = this.threads.build(scope, {
        agentId: agent.id,
        name: `eval ${run.id} #${item.position + 1}`,
        projectId: null,
        memoryNamespace: null,
        inception: 'eval',
      });
      const { reply } = await this.messages.startThread(
        scope,
        thread,
        exchangeOf(item.input as unknown as HumanMessageDto, {
          agentId: agent.id,
          maxSteps: maxStepsOf(this.settings),
          agentVersion: run.agentVersion,
        }),
        tx,
      );
      await this.evals.markStarted(tx, run.id, item.position, thread.id, reply.id);
      replies.push(reply);
    }
    return replies;
  }

  /**
   * The run's judge model's verdict on an item's answer; a judge that fails fails the score, saying why. The
   * judge spends the organization's tokens: it is asked only while the agent's, organization's and end user's budgets
   * allow a reply (CONTRACTS §4, §20), and what it spent is counted in usage and those budgets as soon as it
   * answers, and added to `judged` (the item's cost in the run's summary).
   */
  private async judge(
    run: RunningEvalRun,
    item: JudgingEvalItem,
    judged: { inputTokens: number; outputTokens: number },
    rubric: string,
    output: string,
  ): Promise<EvalScore> {
    const gate = await this.runs.gate({ threadId: item.threadId!, agentId: run.agentId });
    if (isRunOverBudget(gate, 0))
      return { passed: false, reason: 'the token budget is spent: no judge was asked' };
    const model = run.judgeModel ?? 'builtin';
    try {
      const result = await this.models.languageModel(model).doGenerate({
        prompt: [
          { role: 'system', content: JUDGE_INSTRUCTIONS },
          { role: 'user', content: [{ type: 'text', text: judgePrompt(rubric, output) }] },
        ],
        abortSignal: AbortSignal.timeout(this.settings.evalJudgeTimeoutMs),
      });
      const inputTokens = result.usage.inputTokens.total ?? 0;
      const outputTokens = result.usage.outputTokens.total ?? 0;
      await this.usage.recordModelCall(
        {
          orgId: run.orgId,
          agentId: run.agentId,
          userId: evalUserOf(run),
          model,
          inputTokens,
          outputTokens,
          cachedInputTokens: result.usage.inputTokens.cacheRead ?? 0,
        },
        // Committed at once, not with the score: a worker that dies before the score is stored has still been
        // billed for this call, and the judge asked again once the claim is taken back is a second call, counted
        // as one.
      );
      judged.inputTokens += inputTokens;
      judged.outputTokens += outputTokens;
      const answer = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      return verdictOf(answer);
    } catch (error) {
      return { passed: false, reason: `the judge model failed: ${(error as Error).constructor.name}` };
    }
  }
}

/** The end user of a run's threads, under whom its replies and judge calls are counted. */
const evalUserOf = (run: RunningEvalRun): string => `eval:${run.id}`;
