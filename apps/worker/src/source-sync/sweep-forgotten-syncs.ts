import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { SourceRepository } from '@app/persistence';
import { SourceSyncQueue } from '@app/queues';
import { REDIS } from '@app/redis';
import { LockedSweep } from '../sweeps/locked-sweep';

/**
 * Finds syncs the queue forgot: a source left `syncing` whose job is gone (Redis lost its data mid-sync, or the
 * job failed without closing the sync) gets its job back, and the sync resumes from the state it stored in
 * PostgreSQL; a source still `pending` RUN_SWEEP_AFTER_MS after its creation (its first sync was never queued:
 * Redis failed, or the gateway died, between the commit and the enqueue) gets its first one. Enqueueing is a
 * no-op while the source's job exists, so a sync queued or under way is never doubled.
 * Every worker runs the timer; one sweeps per interval (LockedSweep).
 */
@Injectable()
export class SweepForgottenSyncs implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SweepForgottenSyncs.name);
  private readonly timer: LockedSweep;

  constructor(
    private readonly settings: Settings,
    private readonly sources: SourceRepository,
    private readonly syncs: SourceSyncQueue,
    @Inject(REDIS) redis: Redis,
  ) {
    this.timer = LockedSweep.everyRunSweep(redis, settings, ['sources', 'sweep-lock']);
  }

  onApplicationBootstrap(): void {
    this.timer.start(() => this.sweep(), this.logger, 'sync sweep failed');
  }

  onApplicationShutdown(): void {
    this.timer.stop();
  }

  /** One pass; returns the ids of the sources whose sync got its job back. */
  async sweep(): Promise<number[]> {
    if (!(await this.timer.take())) return [];
    const requeued: number[] = [];
    for (const id of await this.sources.unfinishedSyncIds(this.settings.runSweepAfterMs)) {
      if (await this.syncs.enqueue(id)) requeued.push(id);
    }
    if (requeued.length > 0) this.logger.warn({ sources: requeued }, 'forgotten syncs re-enqueued');
    return requeued;
  }
}
