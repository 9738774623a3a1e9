import { Injectable, Logger } from '@nestjs/common';
import { v5 as uuidv5 } from 'uuid';
import { AGENT_NOT_FOUND, StartThread } from '@app/chat';
import { InvalidInputError, NotFoundError, StartChatDto } from '@app/contracts';
import { ApiKeyRepository, RoutineEntity, RoutineRepository } from '@app/persistence';
import { RoutineSchedules } from '@app/queues';
import { RoutineMetrics } from './routine-metrics';
import { nextSlot, slotLabel } from './routine-schedule';

/** Namespace of the thread ids of firings: uuidv5(routine id + slot) in it names exactly one thread per slot. */
const FIRING_NAMESPACE = '6f1d3b8e-6a3c-4f0e-9d5b-2f7f3c8a1e42';

/** The id of the one thread a routine's firing for `slot` may store. */
export const firingThreadId = (routineId: string, slot: Date): string =>
  uuidv5(`${routineId}:${slot.toISOString()}`, FIRING_NAMESPACE);

/** PostgreSQL's unique_violation: the thread of this firing exists already. */
const UNIQUE_VIOLATION = '23505';

/**
 * One firing of a routine: a thread started exactly as `POST /chat` starts one, for the routine's owner, with
 * `inception: "routine"`. The thread's id is derived from the routine and the slot, so a firing delivered twice
 * (two workers, a retried job, a missed slot caught up twice) stores one thread: the second insert fails on the
 * primary key and is counted as a duplicate. A routine that can no longer fire (its agent archived, its key
 * revoked, its message refused) is deactivated with the reason.
 */
@Injectable()
export class FireRoutine {
  private readonly logger = new Logger(FireRoutine.name);

  constructor(
    private readonly routines: RoutineRepository,
    private readonly keys: ApiKeyRepository,
    private readonly schedules: RoutineSchedules,
    private readonly startThread: StartThread,
    private readonly metrics: RoutineMetrics,
  ) {}

  async execute(routineId: string, slot: Date): Promise<void> {
    const routine = await this.routines.findById(routineId);
    if (!routine) {
      // Deleted while its scheduler still ran (the gateway removes it; a failed removal ends here).
      await this.schedules.remove(routineId);
      this.metrics.firings.inc({ outcome: 'skipped' });
      return;
    }
    if (!routine.active) {
      this.metrics.firings.inc({ outcome: 'skipped' });
      return;
    }
    const key = await this.keys.findById(routine.keyId);
    if (!key || key.revokedAt) return this.stop(routine, 'the API key that created it was revoked');

    const threadId = firingThreadId(routine.id, slot);
    try {
      await this.startThread.execute(
        { orgId: routine.orgId, keyId: routine.keyId, requestId: `routine-${routine.id}-${slot.getTime()}` },
        this.startRequest(routine),
        { routine: { threadId, name: `${routine.name} ${slotLabel(slot, routine.timezone)}` } },
      );
    } catch (error) {
      if ((error as { driverError?: { code?: string } }).driverError?.code === UNIQUE_VIOLATION) {
        this.metrics.firings.inc({ outcome: 'duplicate' });
        return;
      }
      if (error instanceof NotFoundError && error.message === AGENT_NOT_FOUND) {
        return this.stop(routine, 'its agent was archived');
      }
      if (error instanceof InvalidInputError) {
        return this.stop(routine, `its message can no longer be sent: ${error.message}`);
      }
      throw error;
    }
    await this.routines.recordFiring(routine.id, {
      at: slot,
      threadId,
      nextRunAt: nextSlot(routine, new Date()),
    });
    this.metrics.firings.inc({ outcome: 'fired' });
    this.logger.log({ routineId: routine.id, threadId }, 'routine fired');
  }

  private startRequest(routine: RoutineEntity): StartChatDto {
    return {
      message: routine.message,
      options: { agent_id: routine.agentId, user_id: routine.userId, ...routine.options },
    };
  }

  private async stop(routine: RoutineEntity, reason: string): Promise<void> {
    await this.routines.deactivate(routine.id, reason);
    await this.schedules.remove(routine.id);
    this.metrics.firings.inc({ outcome: 'stopped' });
    this.logger.warn({ routineId: routine.id, reason }, 'routine stopped');
  }
}
