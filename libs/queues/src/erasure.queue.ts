import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { EraseUserJob, QUEUE } from '@app/contracts';
import { installedSchedulerIds } from './installed-schedulers';

export const ERASE_USER_JOB = 'erase-user';
export const RETENTION_JOB = 'apply-retention';
/** The one job scheduler of retention (the deployment's, not an organization's). */
const RETENTION_SCHEDULER_ID = 'retention-daily';
/** Every day at 03:17 UTC: off the hour, when most deployments are quiet. */
const RETENTION_PATTERN = '17 3 * * *';

/**
 * The `erasure` queue: an end user's erasure (the row in erasures is the source of truth; the job carries its id
 * and is safe to run again), and the daily retention run, set by a job scheduler the workers install and
 * reconcile.
 */
@Injectable()
export class ErasureQueue {
  constructor(
    @InjectQueue(QUEUE.erasure) private readonly queue: Queue<EraseUserJob | Record<string, never>>,
  ) {}

  /** Queues an erasure; a no-op while a job of that erasure is queued or running. */
  async enqueue(erasureId: string): Promise<void> {
    await this.queue.add(
      ERASE_USER_JOB,
      { erasureId },
      {
        jobId: erasureId,
        attempts: 10,
        backoff: { type: 'exponential', delay: 2000 },
        removeOnComplete: true,
        removeOnFail: 1000,
      },
    );
  }

  /**
   * Makes sure a running erasure has a job that will run: queues one when there is none (Redis lost it), and
   * retries one whose attempts ran out (a store failing for longer than its backoff), from its first attempt.
   * Answers what it did; null when the job is waiting, delayed or running.
   */
  async ensureQueued(erasureId: string): Promise<'queued' | 'retried' | null> {
    const job = await this.queue.getJob(erasureId);
    if (!job) {
      await this.enqueue(erasureId);
      return 'queued';
    }
    if (!(await job.isFailed())) return null;
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return 'retried';
  }

  async scheduleRetention(): Promise<void> {
    await this.queue.upsertJobScheduler(
      RETENTION_SCHEDULER_ID,
      { pattern: RETENTION_PATTERN, tz: 'UTC' },
      { name: RETENTION_JOB, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
  }

  async retentionScheduled(): Promise<boolean> {
    return (await installedSchedulerIds(this.queue)).includes(RETENTION_SCHEDULER_ID);
  }

  /** A retention run now, outside the schedule (tests, an operator). */
  async runRetentionNow(): Promise<void> {
    await this.queue.add(RETENTION_JOB, {}, { removeOnComplete: true, removeOnFail: 100 });
  }
}
