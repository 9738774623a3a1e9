import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import {
  ActiveRoutineSchedule,
  ErasureRepository,
  RoutineRepository,
  SourceRepository,
} from '@app/persistence';
import { ErasureQueue, RoutineSchedules, SourceSyncQueue } from '@app/queues';
import { REDIS } from '@app/redis';
import { LockedSweep } from '../sweeps/locked-sweep';
import { SchedulerMetrics } from './scheduler-metrics';

/**
 * Periodic work is state in PostgreSQL; its BullMQ job schedulers (one per active routine, one per live source
 * when SOURCE_SYNC_INTERVAL_SECONDS > 0) are derived from it. A starting worker sets every one again (a changed
 * interval or a schedule whose update failed is applied). Then, every sweep interval, whichever worker takes the
 * lock compares what PostgreSQL wants with the schedulers Redis holds (one read per queue, whatever their number)
 * and puts back the missing ones: a Redis that lost its data while every process stayed up stops nothing for
 * longer than a sweep interval. A routine whose slot passed meanwhile fires once for that slot (its thread id is
 * the slot's, so the schedule firing it too stores it once). Erasures are the same kind of state: one still
 * running whose job is gone or ran out of attempts gets it back (at start too), so none stays `running` for good.
 */
@Injectable()
export class ReconcileSchedulers implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReconcileSchedulers.name);
  private readonly timer: LockedSweep;

  constructor(
    private readonly settings: Settings,
    private readonly routines: RoutineRepository,
    private readonly sources: SourceRepository,
    private readonly routineSchedules: RoutineSchedules,
    private readonly sourceSyncs: SourceSyncQueue,
    private readonly metrics: SchedulerMetrics,
    private readonly erasureQueue: ErasureQueue,
    private readonly erasures: ErasureRepository,
    @Inject(REDIS) redis: Redis,
  ) {
    this.timer = LockedSweep.everyRunSweep(redis, settings, ['schedulers', 'reconcile-lock']);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.installAll();
    this.timer.start(() => this.sweep(), this.logger, 'scheduler reconciliation failed');
  }

  onApplicationShutdown(): void {
    this.timer.stop();
  }

  /** One pass (none when another worker holds the lock); returns how many schedulers were put back. */
  async sweep(): Promise<{ routines: number; sources: number; erasures: number }> {
    if (!(await this.timer.take())) return { routines: 0, sources: 0, erasures: 0 };
    const repaired = {
      routines: await this.repairRoutines(),
      sources: await this.repairSources(),
      erasures: await this.repairErasures(),
    };
    // Retention's one scheduler (set at start by installAll).
    if (!(await this.erasureQueue.retentionScheduled())) {
      await this.erasureQueue.scheduleRetention();
      this.logger.warn('lost retention scheduler set again');
    }
    if (repaired.routines + repaired.sources > 0) this.logger.warn(repaired, 'lost job schedulers set again');
    if (repaired.erasures > 0) this.logger.warn(repaired, 'erasures without a job to run queued again');
    return repaired;
  }

  private async installAll(): Promise<void> {
    const routines = await this.routines.listActiveSchedules();
    const missed = await this.fireMissed(routines);
    for (const routine of routines) await this.routineSchedules.set(routine);
    const sources = await this.sources.liveIds();
    for (const id of sources) await this.sourceSyncs.schedule(id, this.settings.sourceSyncIntervalSeconds);
    await this.erasureQueue.scheduleRetention();
    const erasures = await this.repairErasures();
    this.logger.log(
      { routines: routines.length, missed, sources: sources.length, erasures },
      'job schedulers set',
    );
  }

  // Redis is read before PostgreSQL: a routine or source stopped in between is then absent from what PostgreSQL
  // wants, so its scheduler, removed after the commit, is never put back.
  private async repairRoutines(): Promise<number> {
    const installed = await this.routineSchedules.installedIds();
    const lost = (await this.routines.listActiveSchedules()).filter((routine) => !installed.has(routine.id));
    await this.fireMissed(lost);
    for (const routine of lost) await this.routineSchedules.set(routine);
    this.metrics.repaired.inc({ queue: QUEUE.routineFiring }, lost.length);
    return lost.length;
  }

  private async repairSources(): Promise<number> {
    const every = this.settings.sourceSyncIntervalSeconds;
    if (every <= 0) return 0;
    const installed = await this.sourceSyncs.scheduledIds();
    const lost = (await this.sources.liveIds()).filter((id) => !installed.has(id));
    for (const id of lost) await this.sourceSyncs.schedule(id, every);
    this.metrics.repaired.inc({ queue: QUEUE.sourceSync }, lost.length);
    return lost.length;
  }

  private async repairErasures(): Promise<number> {
    let repaired = 0;
    for (const id of await this.erasures.runningIds())
      if (await this.erasureQueue.ensureQueued(id)) repaired++;
    this.metrics.repaired.inc({ queue: QUEUE.erasure }, repaired);
    return repaired;
  }

  /** Fires once each routine whose next slot is already past (no scheduler fired it); returns how many. */
  private async fireMissed(routines: ActiveRoutineSchedule[]): Promise<number> {
    const now = Date.now();
    const missed = routines.filter((routine) => routine.nextRunAt && routine.nextRunAt.getTime() < now);
    for (const routine of missed)
      await this.routineSchedules.fireMissed(routine.id, routine.nextRunAt as Date);
    return missed.length;
  }
}
