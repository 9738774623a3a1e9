import { Injectable } from '@nestjs/common';
import { RoutineResponse, toRoutineResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { RoutineRepository } from '@app/persistence';

/** GET /routines: an end user's routines. */
@Injectable()
export class ListRoutines {
  constructor(private readonly routines: RoutineRepository) {}

  async execute(caller: Caller, userId: string): Promise<RoutineResponse[]> {
    return (await this.routines.listVisible({ orgId: caller.orgId, userId })).map(toRoutineResponse);
  }
}
