import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { AGENT_NOT_FOUND, StartThread } from '@app/chat';
import {
  CreateRoutineDto,
  InvalidInputError,
  NotFoundError,
  RoutineResponse,
  ThreadResponse,
  toRoutineResponse,
  UpdateRoutineDto,
  isRowId,
  valueErrorMessage,
} from '@app/contracts';
import { Caller } from '@app/identity';
import {
  AgentRepository,
  RoutineChanges,
  RoutineEntity,
  RoutineOwner,
  RoutineRepository,
} from '@app/persistence';
import { RoutineSchedules } from '@app/queues';
import { checkSchedule, checkTimezone, nextSlot, ScheduleError, slotLabel } from '@app/routines';
import { FileAttachments } from '@app/files';

export const ROUTINE_NOT_FOUND = 'Routine not found';
const DEFAULT_TIMEZONE = 'UTC';

/**
 * The routines of CONTRACTS §13: stored in PostgreSQL, each active one mirrored by a BullMQ job scheduler
 * that the gateway sets or removes with every change (a worker re-registers them all when it starts).
 */
@Injectable()
export class RoutineUseCases {
  constructor(
    private readonly settings: Settings,
    private readonly routines: RoutineRepository,
    private readonly agents: AgentRepository,
    private readonly attachments: FileAttachments,
    private readonly schedules: RoutineSchedules,
    private readonly startThread: StartThread,
  ) {}

  async create(caller: Caller, body: CreateRoutineDto): Promise<RoutineResponse> {
    const owner = { orgId: caller.orgId, userId: body.user_id };
    const timezone = body.timezone ?? DEFAULT_TIMEZONE;
    this.checkTiming(body.schedule, timezone);
    await this.requireAgent(caller, body.agent_id);
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

  async list(caller: Caller, userId: string): Promise<RoutineResponse[]> {
    return (await this.routines.listVisible({ orgId: caller.orgId, userId })).map(toRoutineResponse);
  }

  async get(caller: Caller, userId: string, id: string): Promise<RoutineResponse> {
    return toRoutineResponse(await this.require({ orgId: caller.orgId, userId }, id));
  }

  /** Partial; a new schedule, time zone or `active` takes effect at once (the scheduler is set or removed). */
  async update(caller: Caller, userId: string, id: string, body: UpdateRoutineDto): Promise<RoutineResponse> {
    const owner = { orgId: caller.orgId, userId };
    const current = await this.require(owner, id);
    const schedule = body.schedule ?? current.schedule;
    const timezone = body.timezone ?? current.timezone;
    this.checkTiming(schedule, timezone, body.schedule !== undefined, body.timezone !== undefined);
    if (body.agent_id !== undefined) await this.requireAgent(caller, body.agent_id);
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

  async remove(caller: Caller, userId: string, id: string): Promise<void> {
    if (!(await this.routines.remove({ orgId: caller.orgId, userId }, id))) {
      throw new NotFoundError(ROUTINE_NOT_FOUND);
    }
    await this.schedules.remove(id);
  }

  /** POST /routines/{id}/run: one firing now, through the same thread start as `POST /chat`; answers the Thread. */
  async runNow(caller: Caller, userId: string, id: string): Promise<ThreadResponse> {
    const routine = await this.require({ orgId: caller.orgId, userId }, id);
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

  private async require(owner: RoutineOwner, id: string): Promise<RoutineEntity> {
    const routine = isRowId(id) ? await this.routines.findVisible(owner, id) : null;
    if (!routine) throw new NotFoundError(ROUTINE_NOT_FOUND);
    return routine;
  }

  private async requireAgent(caller: Caller, agentId: string): Promise<void> {
    const agent = isRowId(agentId) ? await this.agents.findActive(caller.orgId, agentId) : null;
    if (!agent) throw new NotFoundError(AGENT_NOT_FOUND);
  }

  /** The schedule, then the time zone: a value_error at the field each names, as a Pydantic after-validator. */
  private checkTiming(schedule: string, timezone: string, scheduleGiven = true, timezoneGiven = true): void {
    const issues = [];
    try {
      checkSchedule(schedule, { secondsAllowed: this.settings.routineSecondsSchedules });
    } catch (error) {
      if (!(error instanceof ScheduleError) || !scheduleGiven) throw error;
      issues.push({
        loc: ['body', 'schedule'],
        msg: valueErrorMessage(error.message),
        type: 'value_error',
        input: schedule,
      });
    }
    try {
      checkTimezone(timezone);
    } catch (error) {
      if (!(error instanceof ScheduleError) || !timezoneGiven) throw error;
      issues.push({
        loc: ['body', 'timezone'],
        msg: valueErrorMessage(error.message),
        type: 'value_error',
        input: timezone,
      });
    }
    if (issues.length > 0) throw new InvalidInputError(issues);
  }
}
