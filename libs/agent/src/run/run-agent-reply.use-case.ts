import { Injectable, Logger } from '@nestjs/common';
import { Settings } from '@app/config';
import {
  FinishedReply,
  MessageEntity,
  RunContext,
  RunRepository,
  ThreadEntity,
  ToolApprovalRepository,
} from '@app/persistence';
import { traceAgentInvocation } from '@app/observability';
import {
  RunEvent,
  RunEventLog,
  RunEventLogLostError,
  RunEventWriter,
  RunSupersededError,
} from '@app/run-events';
import { ActiveRuns, RunHandedBackError, RunReplacedError } from './active-runs';
import { ContextCompaction } from './context-compaction';
import { MessageAttachments } from '../conversation';
import { ModelAttachments } from '../model-attachments';
import { ReplyFinisher, RunEnding } from './reply-finisher';
import { RunMetrics } from './run-metrics';
import { RunScheduler } from './run-scheduler';
import { RunStartWaitWindow } from './run-start-wait-window';
import { RunState } from './run-state';
import { StepLoop } from './step-loop';
import { StreamJournal } from './stream-journal';
import { storedRunLines } from './stored-run';
import { ReplyParkedError, UserBudgetTurn } from './user-budget-turn';

export interface RunReplyInput {
  messageId: string;
  requestId?: string;
  /** The queue will not retry after this attempt: an unexpected failure ends the reply with status error. */
  finalAttempt: boolean;
  /**
   * When the reply was enqueued (ms since epoch), for the queue-wait metric and admission control; only for the
   * job's first start: a reply deferred behind its thread's earlier one, or retried, waited for other reasons.
   */
  enqueuedAt?: number;
  /** Aborts when a newer execution of the reply's job took over in this worker: the run then stops (RunReplacedError). */
  replaced?: AbortSignal;
}

/**
 * `wait`: an earlier reply of the thread is still live, or the organization is at its cap, or the reply parked for
 * its end user's spending turn; run this one later.
 */
export type RunReplyResult = 'done' | 'wait';

/**
 * Runs one assistant reply (the worker's `agent-run` job): in its thread's order, one step at a time, every
 * event published, the result persisted. Safe to run twice and to resume after a crash: it continues after what
 * the reply's stream and checkpoints already hold.
 */
@Injectable()
export class RunAgentReply {
  private readonly logger = new Logger(RunAgentReply.name);
  /** The `invoke_agent` span only when traces are exported: otherwise it would be built for the no-op tracer. */
  private readonly traced: boolean;

  constructor(
    private readonly runs: RunRepository,
    private readonly writer: RunEventWriter,
    private readonly stepLoop: StepLoop,
    private readonly journal: StreamJournal,
    private readonly activeRuns: ActiveRuns,
    private readonly scheduler: RunScheduler,
    private readonly finisher: ReplyFinisher,
    private readonly metrics: RunMetrics,
    private readonly startWaits: RunStartWaitWindow,
    private readonly files: ModelAttachments,
    private readonly compaction: ContextCompaction,
    private readonly approvals: ToolApprovalRepository,
    private readonly userBudgetTurn: UserBudgetTurn,
    settings: Settings,
  ) {
    this.traced = settings.otelExporterOtlpEndpoint !== undefined;
  }

  async execute(input: RunReplyInput): Promise<RunReplyResult> {
    // A job that reached this worker while it stops goes back untouched (not even marked running).
    if (this.activeRuns.stopping) {
      this.logger.warn({ messageId: input.messageId }, 'run handed back: the worker is stopping');
      throw new RunHandedBackError();
    }
    const loaded = await this.scheduler.loadAndStart(input.messageId);
    if (!loaded) return 'done';
    const { reply, thread, agent, agentVersion, start } = loaded;
    if (reply.role !== 'assistant' || !reply.agentId) return 'done';
    if (!reply.live) {
      await this.finisher.closeEnded(reply).catch(ignoreSuperseded);
      // Closed while parked: a spending turn handed to it goes on to the user's next parked reply.
      if (reply.budgetTurnParkedAt !== null) await this.userBudgetTurn.giveBack(reply.id);
      await this.scheduler.wakeNext(reply.threadId);
      return 'done';
    }
    if (!thread || !agent) throw new Error(`reply ${reply.id} has no thread or agent`);
    if (start === 'blocked') return 'wait';

    // The version a reply runs is fixed at its first start, by the start itself (parley_start_run): the row read
    // beside it shows none yet. A run resumed after a change of its agent keeps the one it had.
    if (reply.agentVersion === null) reply.agentVersion = agentVersion;
    const { log: events, written, context: claimedContext } = await this.claim(reply, thread, agent.id);
    this.journal.watch(events);
    const state = new RunState(events, written);
    if (!state.resumed && input.enqueuedAt) {
      const waitMs = Date.now() - input.enqueuedAt;
      this.metrics.queueWait.observe(waitMs / 1000);
      this.startWaits.observe(waitMs);
    }
    const log = { messageId: reply.id, threadId: thread.id, requestId: input.requestId };
    this.logger.log({ ...log, resumedAtSeq: written.length }, 'run started');
    const controller = this.activeRuns.start(thread.id, reply.id);
    const replace = () => controller.abort(new RunReplacedError());
    if (input.replaced?.aborted) replace();
    else input.replaced?.addEventListener('abort', replace, { once: true });
    let finished: FinishedReply | null = null;
    // The reply waits for a person: it stays live (its thread's next reply keeps waiting), but frees its slot.
    let waiting = false;
    // The reply waits for its end user's spending turn, parked: live too, its slot freed, its job delayed.
    let parked = false;
    // Whether the reply may hold its end user's spending turn as it ends (a budgeted user's, or one handed it).
    let spendsUserBudget = reply.budgetTurnParkedAt !== null;
    try {
      state.emitOnce({
        type: 'message.started',
        message_id: reply.id,
        thread_id: thread.id,
        agent_version: reply.agentVersion,
      });
      let ending: RunEnding = { kind: 'cancelled' };
      if (!thread.archivedAt) {
        // Read as the claim asked whether the reply is stored; read again here only if that read failed, so its
        // failure is handled as any failure of the run (ended as failed on the last attempt).
        const context = claimedContext ?? (await this.runs.context(reply, agent.id));
        spendsUserBudget ||= context.gate.userBudget !== null;
        // Only a reply that ran before can have waited for a person.
        const approvals =
          agent.approvalRequired.length > 0 || context.steps.length > 0
            ? await this.approvals.ofReply(reply.id)
            : [];
        // What the stored steps and the journal published and the log lacks (Redis lost it) goes out again, same
        // seqs: PostgreSQL holds it. Without a stored step the only such line is message.started, emitted above.
        if (context.steps.length > 0)
          state.restore(storedRunLines(reply, context.steps, context.toolResults, approvals));
        state.restoreJournal(context.journal);
        state.stored();
        const run = { reply, thread, agent, context, state, signal: controller.signal };
        const work = async () => {
          const history = await this.compaction.prepare(run);
          return this.stepLoop.run({
            ...run,
            question: context.history.find((message) => message.id === reply.replyToId) ?? null,
            context: { ...context, history: history.messages },
            summary: history.summary,
            summaryUsageTokens: history.summaryUsageTokens,
            attachments: await this.attachments(thread, history.messages),
            approvals,
          });
        };
        const invocation = {
          agentId: agent.id,
          agentName: agent.name,
          agentVersion: reply.agentVersion,
          conversationId: thread.id,
          model: agent.model,
        };
        const running = this.traced ? traceAgentInvocation(invocation, work) : work();
        const outcome = await running.catch(parkedRun);
        if (outcome === 'parked') {
          // Stopped as it parked (a cancellation sent while it still ran): it ends now, cancelled, or is handed
          // back. Else what it streamed so far reaches Redis before the job moves: the woken run goes on after it.
          if (!controller.signal.aborted) {
            await state.flush();
            parked = true;
          }
        } else if (outcome.kind === 'awaiting_approval') {
          await this.finisher.awaitApproval(reply, agent, state, outcome.questions);
          this.logger.log({ ...log }, 'run waits for an approval');
          waiting = true;
        } else ending = outcome;
      }
      // Stopped because the worker is stopping, not cancelled: the reply stays live for the next worker. A loop
      // that ended anyway is finished here: one statement, and its last step is stored by it.
      if (
        controller.signal.reason instanceof RunHandedBackError &&
        ending.kind === 'cancelled' &&
        !waiting &&
        !parked
      )
        throw controller.signal.reason;
      if (!waiting && !parked) {
        // The final statement deletes the reply's journal rows: no journal insert of them may land after it. Until
        // then the journal goes on storing (the finish may wait for Redis first).
        finished = await this.finisher.finish(reply, agent, state, ending, () =>
          this.journal.unwatch(events),
        );
        this.logger.log({ ...log, outcome: ending.kind }, 'run ended');
      }
    } catch (error) {
      if (controller.signal.reason instanceof RunHandedBackError) {
        // What was released reaches Redis before the job moves, so the next worker resumes right after it.
        await state.flush().catch(() => undefined);
        this.logger.warn({ ...log, reason: controller.signal.reason.message }, 'run handed back');
        throw controller.signal.reason;
      }
      if (error instanceof RunSupersededError) {
        this.logger.warn({ ...log }, 'run taken over by another worker: stopping');
        return 'done';
      }
      if (error instanceof RunEventLogLostError)
        // Redis lost lines it had acknowledged (a failover, a restart without its data): the next attempt claims
        // the log again and restores them from PostgreSQL before it goes on.
        this.logger.warn({ ...log, reason: error.message }, 'run lost its Redis log: starting again');
      if (!input.finalAttempt) throw error;
      this.logger.error({ ...log, err: error }, 'run failed on its last attempt');
      await this.finisher
        .finish(reply, agent, state, { kind: 'failed' }, () => this.journal.unwatch(events))
        .catch(ignoreSuperseded);
      throw error;
    } finally {
      input.replaced?.removeEventListener('abort', replace);
      void this.journal.unwatch(events);
      this.activeRuns.end(thread.id, reply.id);
    }
    if (parked) {
      this.logger.log({ ...log }, "run parked for its end user's spending turn");
      await this.scheduler.wakeOrg(reply.orgId);
      return 'wait';
    }
    // The reply ended, and with it any spending turn it held: the final statement handed it to the user's oldest
    // parked reply, named in its answer and woken here (a user without a budget has none). If another run ended
    // this one, the turn is given back now.
    if (finished) {
      if (finished.nextParked) await this.userBudgetTurn.wake(finished.nextParked);
    } else if (!waiting && spendsUserBudget) await this.userBudgetTurn.giveBack(reply.id);
    // The final statement named the thread's next reply and the organization's; if another run ended this one,
    // look them up.
    if (waiting) {
      await this.wakeAtDeadline(reply, log);
      await this.scheduler.wakeOrg(reply.orgId);
    } else if (finished) {
      await this.scheduler.wake(thread.id, finished.nextReplyId);
      if (finished.nextOfOrg) await this.scheduler.wake(finished.nextOfOrg.threadId, finished.nextOfOrg.id);
    } else {
      await this.scheduler.wakeNext(thread.id);
      await this.scheduler.wakeOrg(reply.orgId);
    }
    return 'done';
  }

  /**
   * Claims the reply's log (RunEventWriter.claim), which then asks whether the reply is still stored: no log of an
   * erased reply may outlive its erasure. The run's context, which it reads next anyway, answers that in the same
   * round trip (RunContext.stored), after the claim as the question must be; an archived thread's run, which
   * reads no context, asks alone (isStored), as does a run whose context read failed (its error then comes again
   * from the run's own read, inside its handling of failures).
   */
  private async claim(
    reply: MessageEntity,
    thread: ThreadEntity,
    agentId: string,
  ): Promise<{ log: RunEventLog; written: RunEvent[]; context: RunContext | null }> {
    const read: { context: RunContext | null } = { context: null };
    const claimed = await this.writer.claim(reply.id, async () => {
      if (thread.archivedAt) return this.runs.isStored(reply.id);
      try {
        read.context = await this.runs.context(reply, agentId);
      } catch {
        return this.runs.isStored(reply.id);
      }
      return read.context.stored;
    });
    return { ...claimed, context: read.context };
  }

  /**
   * Has a reply that now waits for a person run again at the first deadline of its undecided calls, which then
   * counts as a denial. A failure is only logged: the sweep of forgotten replies denies the call later instead.
   */
  private async wakeAtDeadline(reply: MessageEntity, log: Record<string, unknown>): Promise<void> {
    try {
      const undecided = (await this.approvals.ofReply(reply.id)).filter(
        (approval) => approval.decision === null,
      );
      if (undecided.length === 0) return;
      const deadline = Math.min(...undecided.map((approval) => approval.expiresAt.getTime()));
      await this.scheduler.wakeAt(reply.threadId, reply.id, new Date(deadline));
    } catch (error) {
      this.logger.warn(
        { ...log, err: error },
        'approval deadline not scheduled: the sweep denies the call later',
      );
    }
  }

  /** The files attached to the thread's user messages (the thread owner's), as text and images for the model. */
  private async attachments(
    thread: ThreadEntity,
    history: MessageEntity[],
  ): Promise<Map<string, MessageAttachments>> {
    const scope = { orgId: thread.orgId, userId: thread.userId };
    const attachments = new Map<string, MessageAttachments>();
    for (const message of history) {
      if (message.role !== 'user' || message.fileIds.length === 0) continue;
      const [text, images] = await Promise.all([
        this.files.attachmentTextForModel(scope, message.fileIds),
        this.files.imagesForModel(scope, message.fileIds),
      ]);
      attachments.set(message.id, { text, images });
    }
    return attachments;
  }
}

/** A run that parked its reply for its end user's spending turn ends as `parked`; other failures go on. */
function parkedRun(error: unknown): 'parked' {
  if (error instanceof ReplyParkedError) return 'parked';
  throw error;
}

function ignoreSuperseded(error: unknown): void {
  if (!(error instanceof RunSupersededError)) throw error;
}
