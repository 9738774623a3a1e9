import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { AgentRunJob, QUEUE } from '@app/contracts';
import { TracedJobData, withTraceContext } from './job-trace-context';

export const AGENT_RUN_JOB = 'run-reply';
/**
 * A reply's approval deadline (CONTRACTS §19) on the same queue: when due, the reply runs again (its own job,
 * AGENT_RUN_JOB) if it still waits for a call nobody decided; it is never a run itself.
 */
export const APPROVAL_DEADLINE_JOB = 'approval-deadline';

/** The job id of a reply's approval deadline `at`: one per reply and deadline. */
export const approvalDeadlineJobId = (messageId: string, at: Date): string =>
  `approval-deadline-${messageId}-${at.getTime()}`;

/**
 * Added to a deadline's delay: the run that denies the call reads the worker's clock, which may lag the
 * database's (that set the deadline) by a little.
 */
const DEADLINE_GRACE_MS = 1000;

/** BullMQ's lowest priority (2^21 - 1): a larger number is refused. */
const LOWEST_PRIORITY = 2_097_151;

/**
 * Fair share between organizations, without a cap: a reply's priority is its place in its organization's backlog
 * (1 + the organization's live replies before it), and the queue serves lower numbers first, in arrival order
 * among equals. So every organization's first outstanding reply goes before anyone's second, and so on: one
 * organization alone may take every worker slot, and another's reply waits for the next free slot, never behind
 * the first one's backlog. Work-conserving, and decided in Redis by BullMQ's own priority set.
 */
function fairSharePriority(orgBacklog: number): number {
  return Math.min(LOWEST_PRIORITY, Math.max(1, orgBacklog + 1));
}

/**
 * Enqueues agent runs. The job id is the reply's message id: adding the same reply twice (a retried request,
 * the sweep of forgotten replies) is a no-op while the job exists. Jobs carry ids only, and the trace context.
 */
@Injectable()
export class AgentRunQueue {
  constructor(@InjectQueue(QUEUE.agentRun) private readonly queue: Queue<AgentRunJob & TracedJobData>) {}

  /**
   * `orgBacklog`: the organization's live replies stored before this one (0 for a reply enqueued again by the
   * sweep or a wake-up: it has waited long enough).
   */
  async enqueue(job: AgentRunJob, orgBacklog = 0): Promise<void> {
    await this.queue.add(AGENT_RUN_JOB, withTraceContext(job), {
      jobId: job.messageId,
      priority: fairSharePriority(orgBacklog),
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { age: 3600, count: 10000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }

  /**
   * Schedules the approval deadline `at` of a reply that waits for a person (APPROVAL_DEADLINE_JOB). One job per
   * reply and deadline: a resumed run that waits again for the same calls adds nothing.
   */
  async enqueueApprovalDeadline(job: AgentRunJob, at: Date): Promise<void> {
    await this.queue.add(APPROVAL_DEADLINE_JOB, withTraceContext(job), {
      jobId: approvalDeadlineJobId(job.messageId, at),
      delay: Math.max(0, at.getTime() - Date.now()) + DEADLINE_GRACE_MS,
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }

  /**
   * Enqueues a reply whose earlier job ended while the reply stayed live (it waited for an approval, or the job
   * failed without closing it): that job is kept for a while under the same id, and would make `enqueue` a
   * no-op, so it is removed first. A delayed job (a reply that waited for its thread, its organization's cap or
   * its end user's spending turn) is promoted: what enqueues it again, a cancel closing its stream above all,
   * wants it run now, not when its delay is up (DelayedReplies: 2 s). A job waiting or running is left as it is.
   */
  async enqueueAgain(job: AgentRunJob): Promise<void> {
    const previous = await this.queue.getJob(job.messageId);
    const state = previous ? await previous.getState() : 'missing';
    if (state === 'completed' || state === 'failed') await previous?.remove();
    // It may have moved on its own since: then there is nothing to promote.
    if (state === 'delayed') {
      await previous?.promote().catch(() => undefined);
      return;
    }
    await this.enqueue(job);
  }

  /**
   * The runs the workers have to serve: `waiting` for a worker (in the queue's `prioritized` set, since every run
   * has its fair-share priority, or its `wait` list) and `running` (`active`), and their sum. Runs parked behind
   * an earlier reply of their thread or their organization's cap (`delayed`) are left out: more workers would not
   * start them sooner. What KEDA scales workers on (the gateway's /health/runs).
   */
  async outstanding(): Promise<{ waiting: number; running: number; outstanding: number }> {
    const counts = await this.queue.getJobCounts('waiting', 'prioritized', 'active');
    const waiting = (counts.waiting ?? 0) + (counts.prioritized ?? 0);
    const running = counts.active ?? 0;
    return { waiting, running, outstanding: waiting + running };
  }
}
