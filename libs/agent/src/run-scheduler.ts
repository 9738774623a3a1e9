import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { DelayedError, Job, Queue } from 'bullmq';
import { AgentRunJob, QUEUE } from '@app/contracts';
import { RunRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';

const DEFER_MS = 2000;

/**
 * Per-thread order on a queue without groups: a reply whose thread has an earlier live reply waits as a
 * delayed job, and the run that ends wakes the next reply of its thread at once.
 */
@Injectable()
export class RunScheduler {
  constructor(
    @InjectQueue(QUEUE.agentRun) private readonly queue: Queue<AgentRunJob>,
    private readonly agentRuns: AgentRunQueue,
    private readonly runs: RunRepository,
  ) {}

  /**
   * Parks a reply's job behind the earlier live reply of its thread. That run wakes it when it ends; the delay
   * only bounds the wait if that wake-up is missed. Throws DelayedError, which tells BullMQ the job moved.
   */
  async defer(job: Job<AgentRunJob>, token: string | undefined): Promise<never> {
    await job.moveToDelayed(Date.now() + DEFER_MS, token);
    // The earlier reply may have ended (and found nothing to wake) while this job was still active.
    if (!(await this.runs.isBlocked(job.data.messageId))) await job.promote().catch(() => undefined);
    throw new DelayedError();
  }

  /** Starts the thread's next live reply now: promotes its delayed job, or enqueues it if it has none. */
  async wakeNext(threadId: string): Promise<void> {
    await this.wake(threadId, await this.runs.nextLiveReply(threadId));
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
