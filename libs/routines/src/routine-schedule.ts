import { parseExpression } from 'cron-parser';

/** Why a schedule or time zone is refused, in Pydantic's value_error wording (the field is told by the caller). */
export class ScheduleError extends Error {}

/** A routine's schedule, read in its time zone. */
interface ScheduleSpec {
  schedule: string;
  timezone: string;
}

/** Whether the deployment also takes a leading seconds field (ROUTINE_SECONDS_SCHEDULES, a test hook). */
interface ScheduleRules {
  secondsAllowed: boolean;
}

export function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw new ScheduleError(
      `unknown time zone ${JSON.stringify(timezone)}; use an IANA name such as "Europe/Paris"`,
    );
  }
}

/** A 5-field cron expression (minute hour day-of-month month day-of-week), every field in its range. */
export function checkSchedule(schedule: string, rules: ScheduleRules): void {
  const fields = schedule.trim().split(/\s+/).length;
  if (fields !== 5 && !(rules.secondsAllowed && fields === 6)) {
    throw new ScheduleError(`a schedule is a cron expression of 5 fields, this one has ${fields}`);
  }
  try {
    parseExpression(schedule, { tz: 'UTC' });
  } catch (error) {
    throw new ScheduleError(`invalid cron expression: ${(error as Error).message}`);
  }
}

/** The first slot of the schedule strictly after `after`. */
export function nextSlot(spec: ScheduleSpec, after: Date): Date {
  return parseExpression(spec.schedule, { tz: spec.timezone, currentDate: after }).next().toDate();
}

/** `2026-11-25 09:00`, in the routine's time zone: the date part of a fired thread's name. */
export function slotLabel(slot: Date, timezone: string): string {
  return new Intl.DateTimeFormat('sv-SE', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).format(slot);
}
