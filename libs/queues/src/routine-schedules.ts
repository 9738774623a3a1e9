import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { QUEUE, RoutineFiringJob } from '@app/contracts';
import { installedSchedulerIds } from './installed-schedulers';

export const ROUTINE_FIRING_JOB = 'fire-routine';

/** What BullMQ needs to fire a routine on its schedule. */
interface RoutineSchedule {
  id: string;
  schedule: string;
  timezone: string;
}

/**
 * The BullMQ job schedulers of routines (one per active routine, id = the routine's id), derived from
 * PostgreSQL: set when a routine is created or changed, removed when it stops, set again for every active
 * routine when a worker starts, and put back by the workers' reconciliation when Redis lost them.
 */
@Injectable()
export class RoutineSchedules {
  constructor(@InjectQueue(QUEUE.routineFiring) private readonly queue: Queue<RoutineFiringJob>) {}

  async set(routine: RoutineSchedule): Promise<void> {
    await this.queue.upsertJobScheduler(
      routine.id,
      { pattern: routine.schedule, tz: routine.timezone },
      {
        name: ROUTINE_FIRING_JOB,
        data: { routineId: routine.id },
        opts: { removeOnComplete: true, removeOnFail: 1000 },
      },
    );
  }

  /** The ids of the routines that have a scheduler: one read of the queue's scheduler index, whatever their number. */
  async installedIds(): Promise<Set<string>> {
    return new Set(await installedSchedulerIds(this.queue));
  }

  async remove(routineId: string): Promise<void> {
    await this.queue.removeJobScheduler(routineId);
  }

  /** A firing now, outside the schedule: a slot missed while no worker ran. Its id makes it once per slot. */
  async fireMissed(routineId: string, slot: Date): Promise<void> {
    await this.queue.add(
      ROUTINE_FIRING_JOB,
      { routineId, slot: slot.toISOString() },
      { jobId: `missed-${routineId}-${slot.getTime()}`, removeOnComplete: true, removeOnFail: 1000 },
    );
  }
}
