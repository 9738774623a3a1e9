import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isRunOverBudget, ModelProvider } from '@app/agent';
import { maxStepsOf, Settings } from '@app/config';
import { enqueueStoredReply, exchangeOf } from '@app/chat';
import { HumanMessageDto } from '@app/contracts';
import { JUDGE_INSTRUCTIONS, judgePrompt, scoreReply, verdictOf } from '@app/evals';
import {
  AgentRepository,
  EvalRepository,
  EvalRun,
  EvalRunItem,
  EvalScore,
  EndedEvalItem,
  MessageEntity,
  MessageRepository,
  RunRepository,
  ThreadRepository,
  UsageRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';

/** How often each worker looks at the running runs: the pace at which a run refills its items in flight. */
const TICK_MS = 250;
const JUDGE_TIMEOUT_MS = 60_000;

/**
 * Runs evaluations (CONTRACTS §23) on the workers. Each item is an ordinary reply in a thread of
 * `inception: "eval"`, run by the `agent-run` consumers like any other, pinned to the run's agent version; its
 * thread and reply are stored in the same transaction that marks the item started, so an item is run once
 * whatever process dies when (a reply that lost its worker resumes as every reply does). Every tick, a worker
 * that takes a run's row lock scores the items whose replies ended, starts the next ones up to
 * EVAL_ITEMS_IN_FLIGHT (a run adds at most that many to its organization's backlog, which orders the run queue's
 * fair share, so live users wait behind no more), and closes the run when every item is scored.
 */
@Injectable()
export class EvalRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EvalRunner.name);
  private timer?: NodeJS.Timeout;
  private ticking = false;

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

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One pass over the running runs; a pass still going when the next is due lets it pass. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      for (const id of await this.evals.runningRunIds()) await this.advance(id);
    } catch (error) {
      this.logger.warn({ err: error }, 'eval runs not advanced; the next tick tries again');
    } finally {
      this.ticking = false;
    }
  }

  /** Scores, starts and closes what it can of one run, under its row lock; the replies started go out after. */
  async advance(runId: string): Promise<void> {
    const started = await this.db.transaction(async (tx) => {
      const run = await this.evals.lockRunning(tx, runId);
      if (!run) return [];
      for (const item of await this.evals.endedUnscored(tx, runId)) {
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
        await this.evals.saveScores(tx, runId, item, scored, judged);
      }
      const room = this.settings.evalItemsInFlight - (await this.evals.inFlight(tx, runId));
      const next = room > 0 ? await this.evals.unstarted(tx, runId, room) : [];
      const replies = next.length > 0 ? await this.start(tx, run, next) : [];
      if (await this.evals.finishIfScored(tx, runId)) this.logger.log({ runId }, 'eval run done');
      return replies;
    });
    for (const reply of started) await enqueueStoredReply(this.agentRuns, this.messages, this.logger, reply);
  }

  /** Stores each item's thread and pending reply, pinned to the run's version, and marks the item started. */
  private async start(tx: EntityManager, run: EvalRun, items: EvalRunItem[]): Promise<MessageEntity[]> {
    // The agent as stored (archived ones too: a run started before the archive ends); its version is pinned.
    const agent = await this.agents.findById(run.agentId, tx);
    if (!agent) throw new Error(`eval run ${run.id}: agent ${run.agentId} is gone`);
    const replies: MessageEntity[] = [];
    for (const item of items) {
      const thread = this.threads.build(
        { orgId: run.orgId, userId: evalUserOf(run) },
        {
          agentId: agent.id,
          name: `eval ${run.id} #${item.position + 1}`,
          projectId: null,
          memoryNamespace: null,
          inception: 'eval',
        },
      );
      const { reply } = await this.messages.startThread(
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
    run: EvalRun,
    item: EndedEvalItem,
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
        abortSignal: AbortSignal.timeout(JUDGE_TIMEOUT_MS),
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
        // billed for this call, and the judge asked again on the next tick is a second call, counted as one.
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
const evalUserOf = (run: EvalRun): string => `eval:${run.id}`;
