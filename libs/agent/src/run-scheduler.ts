import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { DelayedError, Job, Queue } from 'bullmq';
import { Settings } from '@app/config';
import { AgentRunJob, QUEUE } from '@app/contracts';
import { MessageEntity, RunRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';

const DEFER_MS = 2000;

/**
 * Per-thread order and per-organization fairness on a queue without groups: a reply whose thread has an earlier
 * live reply, or whose organization already runs AGENT_RUN_ORG_CONCURRENCY replies, waits as a delayed job; the
 * run that ends wakes the next reply of its thread and the next waiting reply of its organization at once. The
 * waiting state is the reply's row (pending) and its delayed job, so a crash loses neither.
 */
@Injectable()
export class RunScheduler {
  constructor(
    @InjectQueue(QUEUE.agentRun) private readonly queue: Queue<AgentRunJob>,
    private readonly agentRuns: AgentRunQueue,
    private readonly runs: RunRepository,
    private readonly settings: Settings,
  ) {}

  /** Starts a reply's run unless it must wait for its thread or its organization's cap (RunRepository.start). */
  start(reply: MessageEntity, threadArchived: boolean): Promise<'blocked' | 'started'> {
    return this.runs.start(reply, threadArchived, this.settings.agentRunOrgConcurrency);
  }

  /**
   * Parks a reply's job behind the earlier live reply of its thread, or its organization's running ones. The run
   * that ends wakes it; the delay only bounds the wait if that wake-up is missed or went to another reply. Throws DelayedError, which tells BullMQ the job moved.
   */
  async defer(job: Job<AgentRunJob>, token: string | undefined): Promise<never> {
    await job.moveToDelayed(Date.now() + DEFER_MS, token);
    // The earlier reply may have ended (and found nothing to wake) while this job was still active.
    const blocked = await this.runs.isBlocked(job.data.messageId, this.settings.agentRunOrgConcurrency);
    if (!blocked) await job.promote().catch(() => undefined);
    throw new DelayedError();
  }

  /** Starts the thread's next live reply now: promotes its delayed job, or enqueues it if it has none. */
  async wakeNext(threadId: string): Promise<void> {
    await this.wake(threadId, await this.runs.nextLiveReply(threadId));
  }

  /** Gives the slot a run of the organization just freed to its oldest waiting reply. */
  async wakeOrg(orgId: string): Promise<void> {
    const next = await this.runs.nextWaitingReplyOfOrg(orgId);
    if (next) await this.wake(next.threadId, next.id);
  }

  /** Starts the reply `next` of the thread now (nothing when null), as wakeNext once it is known. */
  async wake(threadId: string, next: string | null): Promise<void> {
    if (!next) return;
    const job = await this.queue.getJob(next);
    if (!job) {
      await this.agentRuns.enqueue({ messageId: next, threadId });
      return;
    }
    // It may have woken on its own between the two calls: then there is nothing to promote.
    if (await job.isDelayed()) await job.promote().catch(() => undefined);
  }
}
