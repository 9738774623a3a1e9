import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { AgentRunJob, QUEUE } from '@app/contracts';
import { RunRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { REDIS } from '@app/redis';
import { LockedSweep } from '../sweeps/locked-sweep';

/**
 * Finds replies the queue forgot: pending ones whose job was never added (a crash between commit and enqueue),
 * running ones whose job is gone or failed without closing them, and ones waiting for an approval whose time
 * is up (their run denies the call: this holds even if Redis lost every job). Each gets its job back (same job id),
 * and the run resumes from its checkpoints. Every worker runs the timer; one sweeps per interval (LockedSweep).
 */
@Injectable()
export class SweepPendingReplies implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SweepPendingReplies.name);
  private readonly timer: LockedSweep;

  constructor(
    private readonly settings: Settings,
    private readonly runs: RunRepository,
    private readonly agentRuns: AgentRunQueue,
    @InjectQueue(QUEUE.agentRun) private readonly queue: Queue<AgentRunJob>,
    @Inject(REDIS) redis: Redis,
  ) {
    this.timer = LockedSweep.everyRunSweep(redis, settings, ['runs', 'sweep-lock']);
  }

  onApplicationBootstrap(): void {
    this.timer.start(() => this.sweep(), this.logger, 'sweep failed');
  }

  onApplicationShutdown(): void {
    this.timer.stop();
  }

  /** One pass; returns the ids of the replies that got their job back (none when another worker holds the lock). */
  async sweep(): Promise<string[]> {
    if (!(await this.timer.take())) return [];
    const requeued: string[] = [];
    for (const reply of await this.runs.staleLiveReplies(this.settings.runSweepAfterMs)) {
      const job = await this.queue.getJob(reply.id);
      const state = job ? await job.getState() : 'missing';
      if (state !== 'failed' && state !== 'completed' && state !== 'missing' && state !== 'unknown') continue;
      await this.agentRuns.enqueueAgain({ messageId: reply.id, threadId: reply.threadId });
      requeued.push(reply.id);
    }
    if (requeued.length > 0) this.logger.warn({ replies: requeued }, 'forgotten replies re-enqueued');
    return requeued;
  }
}
