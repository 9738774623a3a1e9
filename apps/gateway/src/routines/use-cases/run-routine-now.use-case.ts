import { Injectable } from '@nestjs/common';
import { StartThread } from '@app/chat';
import { ThreadResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { RoutineRepository } from '@app/persistence';
import { slotLabel } from '@app/routines';
import { RoutineRules } from './routine-rules';

/** POST /routines/{id}/run: one firing now, through the same thread start as `POST /chat`; answers the Thread. */
@Injectable()
export class RunRoutineNow {
  constructor(
    private readonly rules: RoutineRules,
    private readonly routines: RoutineRepository,
    private readonly startThread: StartThread,
  ) {}

  async execute(caller: Caller, userId: string, id: string): Promise<ThreadResponse> {
    const routine = await this.rules.requireRoutine({ orgId: caller.orgId, userId }, id);
    const now = new Date();
    const thread = await this.startThread.execute(
      caller,
      {
        message: routine.message,
        options: { agent_id: routine.agentId, user_id: routine.userId, ...routine.options },
      },
      { routine: { name: `${routine.name} ${slotLabel(now, routine.timezone)}` } },
    );
    await this.routines.recordFiring(routine.id, {
      at: now,
      threadId: thread.id,
      nextRunAt: routine.nextRunAt,
    });
    return thread;
  }
}
