import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { RoutineRepository } from '@app/persistence';
import { RoutineSchedules } from '@app/queues';

/**
 * When a worker starts: every active routine's job scheduler is set again from PostgreSQL (a flushed Redis
 * loses none), and a routine whose next firing is already past (every worker was down at the time) fires once
 * now for that slot, not once per missed slot. Several workers starting at once queue the same job ids, and a
 * slot fired twice still makes one thread (FireRoutine).
 */
@Injectable()
export class RegisterRoutines implements OnApplicationBootstrap {
  private readonly logger = new Logger(RegisterRoutines.name);

  constructor(
    private readonly routines: RoutineRepository,
    private readonly schedules: RoutineSchedules,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const now = new Date();
    const missed = await this.routines.listOverdue(now);
    for (const routine of missed) await this.schedules.fireMissed(routine.id, routine.nextRunAt as Date);
    const active = await this.routines.listActive();
    for (const routine of active) await this.schedules.set(routine);
    this.logger.log({ routines: active.length, missed: missed.length }, 'routine schedules registered');
  }
}
