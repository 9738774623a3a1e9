import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { AGENT_NOT_FOUND } from '@app/chat';
import { InvalidInputError, isRowId, NotFoundError, ValidationIssue, valueErrorIssue } from '@app/contracts';
import { Caller } from '@app/identity';
import { AgentRepository, RoutineEntity, RoutineOwner, RoutineRepository } from '@app/persistence';
import { checkSchedule, checkTimezone, ScheduleError } from '@app/routines';

export const ROUTINE_NOT_FOUND = 'Routine not found';
export const DEFAULT_TIMEZONE = 'UTC';

/**
 * What the routine use cases check before they change anything: the routine is the owner's, its agent is live,
 * its schedule and time zone are valid. The routines of CONTRACTS §13 are stored in PostgreSQL, each active one
 * mirrored by a BullMQ job scheduler that the use case sets or removes with every change.
 */
@Injectable()
export class RoutineRules {
  constructor(
    private readonly settings: Settings,
    private readonly routines: RoutineRepository,
    private readonly agents: AgentRepository,
  ) {}

  async requireRoutine(owner: RoutineOwner, id: string): Promise<RoutineEntity> {
    const routine = isRowId(id) ? await this.routines.findVisible(owner, id) : null;
    if (!routine) throw new NotFoundError(ROUTINE_NOT_FOUND);
    return routine;
  }

  async requireAgent(caller: Caller, agentId: string): Promise<void> {
    const agent = isRowId(agentId) ? await this.agents.findActive(caller.orgId, agentId) : null;
    if (!agent) throw new NotFoundError(AGENT_NOT_FOUND);
  }

  /**
   * The schedule, then the time zone: a value_error at the field each names, built as a Pydantic after-validator's
   * (FastAPI's key order and `ctx`), so it matches FastAPI's bytes.
   */
  checkTiming(schedule: string, timezone: string, scheduleGiven = true, timezoneGiven = true): void {
    const issues: ValidationIssue[] = [];
    try {
      checkSchedule(schedule, { secondsAllowed: this.settings.routineSecondsSchedules });
    } catch (error) {
      if (!(error instanceof ScheduleError) || !scheduleGiven) throw error;
      issues.push(valueErrorIssue(['body', 'schedule'], schedule, error.message));
    }
    try {
      checkTimezone(timezone);
    } catch (error) {
      if (!(error instanceof ScheduleError) || !timezoneGiven) throw error;
      issues.push(valueErrorIssue(['body', 'timezone'], timezone, error.message));
    }
    if (issues.length > 0) throw new InvalidInputError(issues);
  }
}
