import { Injectable } from '@nestjs/common';
import { CreateRoutineDto, RoutineResponse, toRoutineResponse } from '@app/contracts';
import { FileAttachments } from '@app/files';
import { Caller } from '@app/identity';
import { RoutineRepository } from '@app/persistence';
import { RoutineSchedules } from '@app/queues';
import { nextSlot } from '@app/routines';
import { DEFAULT_TIMEZONE, RoutineRules } from './routine-rules';

/** POST /routines: stores the routine and, when active, sets its job scheduler. */
@Injectable()
export class CreateRoutine {
  constructor(
    private readonly rules: RoutineRules,
    private readonly routines: RoutineRepository,
    private readonly attachments: FileAttachments,
    private readonly schedules: RoutineSchedules,
  ) {}

  async execute(caller: Caller, body: CreateRoutineDto): Promise<RoutineResponse> {
    const owner = { orgId: caller.orgId, userId: body.user_id };
    const timezone = body.timezone ?? DEFAULT_TIMEZONE;
    this.rules.checkTiming(body.schedule, timezone);
    await this.rules.requireAgent(caller, body.agent_id);
    await this.attachments.requireUploaded(owner, body.message.file_ids ?? []);
    const active = body.active ?? true;
    const routine = await this.routines.create(owner, {
      keyId: caller.keyId,
      name: body.name,
      agentId: body.agent_id,
      schedule: body.schedule,
      timezone,
      message: body.message,
      options: body.options ?? {},
      active,
      nextRunAt: active ? nextSlot({ schedule: body.schedule, timezone }, new Date()) : null,
    });
    if (active) await this.schedules.set(routine);
    return toRoutineResponse(routine);
  }
}
