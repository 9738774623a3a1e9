import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { RoutineRepository } from '@app/persistence';
import { RoutineSchedules } from '@app/queues';
import { ROUTINE_NOT_FOUND } from './routine-rules';

/** DELETE /routines/{id}: the routine and its job scheduler. */
@Injectable()
export class RemoveRoutine {
  constructor(
    private readonly routines: RoutineRepository,
    private readonly schedules: RoutineSchedules,
  ) {}

  async execute(caller: Caller, userId: string, id: string): Promise<void> {
    if (!(await this.routines.remove({ orgId: caller.orgId, userId }, id))) {
      throw new NotFoundError(ROUTINE_NOT_FOUND);
    }
    await this.schedules.remove(id);
  }
}
