import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { DelayedError, Job, Queue } from 'bullmq';
import { ReplyWaker } from '@app/agent';
import { Settings } from '@app/config';
import { AgentRunJob, QUEUE } from '@app/contracts';
import { RunRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';

const DEFER_MS = 2000;

/**
 * A waiting reply on a queue without groups is a delayed `agent-run` job: parked while its thread or its
 * organization is busy, promoted when the run before it ends. The delay only bounds the wait if that wake-up is
 * missed or went to another reply.
 */
@Injectable()
export class DelayedReplies extends ReplyWaker {
  constructor(
    @InjectQueue(QUEUE.agentRun) private readonly queue: Queue<AgentRunJob>,
    private readonly agentRuns: AgentRunQueue,
    private readonly runs: RunRepository,
    private readonly settings: Settings,
  ) {
    super();
  }

  /** Parks a reply's job until it is woken. Throws DelayedError, which tells BullMQ the job moved. */
  async defer(job: Job<AgentRunJob>, token: string | undefined): Promise<never> {
    await job.moveToDelayed(Date.now() + DEFER_MS, token);
    // The earlier reply may have ended (and found nothing to wake) while this job was still active.
    const blocked = await this.runs.isBlocked(job.data.messageId, this.settings.agentRunOrgConcurrency);
    if (!blocked) await job.promote().catch(() => undefined);
    throw new DelayedError();
  }

  /** A delayed job at the deadline (APPROVAL_DEADLINE_JOB), which ApprovalDeadlineJobHandler handles when due. */
  async wakeAt(threadId: string, replyId: string, at: Date): Promise<void> {
    await this.agentRuns.enqueueApprovalDeadline({ messageId: replyId, threadId }, at);
  }

  /** Promotes the reply's delayed job, or enqueues it if it has none. */
  async wake(threadId: string, replyId: string): Promise<void> {
    const job = await this.queue.getJob(replyId);
    if (!job) {
      await this.agentRuns.enqueue({ messageId: replyId, threadId });
      return;
    }
    // It may have woken on its own between the two calls: then there is nothing to promote.
    if (await job.isDelayed()) await job.promote().catch(() => undefined);
  }
}
