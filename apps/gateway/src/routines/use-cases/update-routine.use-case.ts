import { Injectable } from '@nestjs/common';
import { RoutineResponse, toRoutineResponse, UpdateRoutineDto } from '@app/contracts';
import { FileAttachments } from '@app/files';
import { Caller } from '@app/identity';
import { RoutineChanges, RoutineEntity, RoutineRepository } from '@app/persistence';
import { RoutineSchedules } from '@app/queues';
import { nextSlot } from '@app/routines';
import { RoutineRules } from './routine-rules';

/** PUT /routines/{id}: partial; a new schedule, time zone or `active` takes effect at once (the scheduler is set or removed). */
@Injectable()
export class UpdateRoutine {
  constructor(
    private readonly rules: RoutineRules,
    private readonly routines: RoutineRepository,
    private readonly attachments: FileAttachments,
    private readonly schedules: RoutineSchedules,
  ) {}

  async execute(
    caller: Caller,
    userId: string,
    id: string,
    body: UpdateRoutineDto,
  ): Promise<RoutineResponse> {
    const owner = { orgId: caller.orgId, userId };
    const current = await this.rules.requireRoutine(owner, id);
    const schedule = body.schedule ?? current.schedule;
    const timezone = body.timezone ?? current.timezone;
    this.rules.checkTiming(schedule, timezone, body.schedule !== undefined, body.timezone !== undefined);
    if (body.agent_id !== undefined) await this.rules.requireAgent(caller, body.agent_id);
    if (body.message) await this.attachments.requireUploaded(owner, body.message.file_ids ?? []);
    const active = body.active ?? current.active;
    const changes: RoutineChanges = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.agent_id !== undefined ? { agentId: body.agent_id } : {}),
      ...(body.message ? { message: body.message } : {}),
      ...(body.options ? { options: body.options } : {}),
      schedule,
      timezone,
      active,
      // Switched on again by hand: the reason it stopped no longer holds.
      inactiveReason: active ? null : current.inactiveReason,
      nextRunAt: active ? nextSlot({ schedule, timezone }, new Date()) : null,
    };
    const updated = (await this.routines.update(owner, id, changes)) as RoutineEntity;
    if (active) await this.schedules.set(updated);
    else await this.schedules.remove(id);
    return toRoutineResponse(updated);
  }
}
