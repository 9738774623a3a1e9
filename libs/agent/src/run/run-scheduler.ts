import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { LoadedRun, RunRepository } from '@app/persistence';

/**
 * Starts a waiting reply's run now. Declared here and implemented by the app that consumes the runs (the worker
 * promotes the reply's delayed job), so the runtime knows no queue.
 */
export abstract class ReplyWaker {
  abstract wake(threadId: string, replyId: string): Promise<void>;

  /**
   * Runs the reply again once `at` has passed, if it still waits for a person then: a call of it nobody decided
   * by its deadline is denied at that moment (CONTRACTS §19), not when a sweep next passes.
   */
  abstract wakeAt(threadId: string, replyId: string, at: Date): Promise<void>;
}

/**
 * When a reply runs (the rule's text: persistence's sql/run-scheduling.sql.ts): a reply whose thread has an
 * earlier live reply waits, and so does one whose organization already runs AGENT_RUN_ORG_CONCURRENCY replies
 * when that optional cap is set; the run that ends wakes the next reply of its thread (and under a cap the next
 * waiting reply of its organization) at once. Fair share between organizations is the queue's order
 * (fairSharePriority), not a wait here. The waiting state is the reply's row (pending), so a crash loses none.
 */
@Injectable()
export class RunScheduler {
  constructor(
    private readonly runs: RunRepository,
    private readonly settings: Settings,
    private readonly waker: ReplyWaker,
  ) {}

  /**
   * Loads a reply with its thread and agent and starts its run unless it must wait for its thread or its
   * organization's cap, in one round trip (RunRepository.loadAndStart).
   */
  loadAndStart(messageId: string): Promise<LoadedRun | null> {
    return this.runs.loadAndStart(messageId, this.settings.agentRunOrgConcurrency);
  }

  /** Starts the thread's next live reply now. */
  async wakeNext(threadId: string): Promise<void> {
    await this.wake(threadId, await this.runs.nextLiveReply(threadId));
  }

  /** Under a cap, gives the slot a run of the organization just freed to its oldest waiting reply. */
  async wakeOrg(orgId: string): Promise<void> {
    if (this.settings.agentRunOrgConcurrency === 0) return;
    const next = await this.runs.nextWaitingReplyOfOrg(orgId);
    if (next) await this.wake(next.threadId, next.id);
  }

  /** Runs a reply that waits for a person again at `deadline`, the first of its undecided calls' time-outs. */
  async wakeAt(threadId: string, replyId: string, deadline: Date): Promise<void> {
    await this.waker.wakeAt(threadId, replyId, deadline);
  }

  /** Starts the reply `next` of the thread now (nothing when null), as wakeNext once it is known. */
  async wake(threadId: string, next: string | null): Promise<void> {
    if (next) await this.waker.wake(threadId, next);
  }
}
