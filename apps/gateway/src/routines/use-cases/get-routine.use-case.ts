import { Injectable } from '@nestjs/common';
import { RoutineResponse, toRoutineResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { RoutineRules } from './routine-rules';

/** GET /routines/{id}. */
@Injectable()
export class GetRoutine {
  constructor(private readonly rules: RoutineRules) {}

  async execute(caller: Caller, userId: string, id: string): Promise<RoutineResponse> {
    return toRoutineResponse(await this.rules.requireRoutine({ orgId: caller.orgId, userId }, id));
  }
}
