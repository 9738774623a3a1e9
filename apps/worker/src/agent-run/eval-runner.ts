import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ModelProvider } from '@app/agent';
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
  MessageEntity,
  MessageRepository,
  ThreadRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';

/**
 * Replies of one run live at once. A run adds at most this many to its organization's backlog, which orders the
 * run queue (AgentRunQueue's fair share): a live user of the organization waits behind at most these, however
 * many items the run has, and the run gets the slots live traffic leaves.
 */
export const EVAL_ITEMS_IN_FLIGHT = 8;
/** How often each worker looks at the running runs: the pace at which a run refills its items in flight. */
const TICK_MS = 250;
const JUDGE_TIMEOUT_MS = 60_000;

/**
 * Runs evaluations (CONTRACTS §23) on the workers. Each item is an ordinary reply in a thread of
 * `inception: "eval"`, run by the `agent-run` consumers like any other, pinned to the run's agent version; its
 * thread and reply are stored in the same transaction that marks the item started, so an item is run once
 * whatever process dies when (a reply that lost its worker resumes as every reply does). Every tick, a worker
 * that takes a run's row lock scores the items whose replies ended, starts the next ones up to
 * EVAL_ITEMS_IN_FLIGHT, and closes the run when every item is scored.
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
        const { scores, passed } = await scoreReply(
          item.expected,
          {
            succeeded: item.replyStatus === 'success',
            output: item.replyContent,
            toolsCalled: item.toolsCalled,
          },
          (rubric, output) => this.judge(run, rubric, output),
        );
        await this.evals.saveScores(tx, runId, item, scores, passed);
      }
      const room = EVAL_ITEMS_IN_FLIGHT - (await this.evals.inFlight(tx, runId));
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
        { orgId: run.orgId, userId: `eval:${run.id}` },
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

  /** The run's judge model's verdict on an answer; a judge that fails fails the score, saying why. */
  private async judge(run: EvalRun, rubric: string, output: string): Promise<EvalScore> {
    try {
      const result = await this.models.languageModel(run.judgeModel ?? 'builtin').doGenerate({
        prompt: [
          { role: 'system', content: JUDGE_INSTRUCTIONS },
          { role: 'user', content: [{ type: 'text', text: judgePrompt(rubric, output) }] },
        ],
        abortSignal: AbortSignal.timeout(JUDGE_TIMEOUT_MS),
      });
      const answer = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      return verdictOf(answer);
    } catch (error) {
      return { passed: false, reason: `the judge model failed: ${(error as Error).constructor.name}` };
    }
  }
}
