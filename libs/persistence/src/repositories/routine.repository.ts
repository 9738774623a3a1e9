import { Injectable } from '@nestjs/common';
import { DataSource, LessThan } from 'typeorm';
import { newId, RoutineEntity } from '../entities';
import { withTenant } from './tenant-scope';

/** The fields a routine's owner sets, on creating it and after. */
type RoutineSetting =
  'name' | 'agentId' | 'schedule' | 'timezone' | 'message' | 'options' | 'active' | 'nextRunAt';

type NewRoutine = Pick<RoutineEntity, 'keyId' | 'userId' | RoutineSetting>;
export type RoutineChanges = Partial<Pick<RoutineEntity, RoutineSetting | 'inactiveReason'>>;

export type ActiveRoutineSchedule = Pick<RoutineEntity, 'id' | 'schedule' | 'timezone' | 'nextRunAt'>;

/** Whose routines a call may touch: the key's organization and the owning end user (CONTRACTS §13). */
export interface RoutineOwner {
  orgId: string;
  userId: string;
}

/** Routines; PostgreSQL is their source of truth, the BullMQ job schedulers are derived from it. */
@Injectable()
export class RoutineRepository {
  constructor(private readonly db: DataSource) {}

  async create(owner: RoutineOwner, values: Omit<NewRoutine, 'userId'>): Promise<RoutineEntity> {
    return withTenant(this.db, owner, (tx) => {
      const repository = tx.getRepository(RoutineEntity);
      const now = new Date();
      return repository.save(
        repository.create({
          id: newId(),
          orgId: owner.orgId,
          userId: owner.userId,
          inactiveReason: null,
          lastRunAt: null,
          lastThreadId: null,
          createdAt: now,
          updatedAt: now,
          ...values,
        }),
      );
    });
  }

  findVisible(owner: RoutineOwner, id: string): Promise<RoutineEntity | null> {
    return withTenant(this.db, owner, (tx) =>
      tx.getRepository(RoutineEntity).findOneBy({ id, orgId: owner.orgId, userId: owner.userId }),
    );
  }

  // crosses tenants: the worker fires a routine by the id of its BullMQ job, whichever organization's it is
  findById(id: string): Promise<RoutineEntity | null> {
    return this.db.getRepository(RoutineEntity).findOneBy({ id });
  }

  /** Newest first. */
  listVisible(owner: RoutineOwner): Promise<RoutineEntity[]> {
    return withTenant(this.db, owner, (tx) =>
      tx.getRepository(RoutineEntity).find({
        where: { orgId: owner.orgId, userId: owner.userId },
        order: { createdAt: 'DESC', id: 'DESC' },
      }),
    );
  }

  /** Every routine that should fire: what a starting worker registers with BullMQ. */
  // crosses tenants: a starting worker schedules every organization's routines
  listActive(): Promise<RoutineEntity[]> {
    return this.db.getRepository(RoutineEntity).find({ where: { active: true }, order: { id: 'ASC' } });
  }

  /** What the scheduler of each active routine needs, and its next slot: the columns only, for a sweep of many. */
  // crosses tenants: the schedulers' sweep covers every organization
  listActiveSchedules(): Promise<ActiveRoutineSchedule[]> {
    return this.db.getRepository(RoutineEntity).find({
      select: { id: true, schedule: true, timezone: true, nextRunAt: true },
      where: { active: true },
      order: { id: 'ASC' },
    });
  }

  /** Active routines whose next firing is already past: missed while no worker ran. */
  // crosses tenants: missed firings are found for every organization
  listOverdue(now: Date): Promise<RoutineEntity[]> {
    return this.db
      .getRepository(RoutineEntity)
      .find({ where: { active: true, nextRunAt: LessThan(now) }, order: { id: 'ASC' } });
  }

  /** The updated row, or null when there is no such routine for the owner. */
  async update(owner: RoutineOwner, id: string, changes: RoutineChanges): Promise<RoutineEntity | null> {
    const result = await withTenant(this.db, owner, (tx) =>
      tx
        .getRepository(RoutineEntity)
        .update({ id, orgId: owner.orgId, userId: owner.userId }, { ...changes, updatedAt: new Date() }),
    );
    return result.affected ? this.findVisible(owner, id) : null;
  }

  async remove(owner: RoutineOwner, id: string): Promise<boolean> {
    const result = await withTenant(this.db, owner, (tx) =>
      tx.getRepository(RoutineEntity).delete({ id, orgId: owner.orgId, userId: owner.userId }),
    );
    return (result.affected ?? 0) > 0;
  }

  /**
   * Records a firing: the thread it made and the next slot. A firing older than the last one recorded (a late
   * retry) leaves the newer record as it is.
   */
  // crosses tenants: a firing (the worker's, or run-now's after findVisible) is recorded by the routine's id
  async recordFiring(
    id: string,
    firing: { at: Date; threadId: string; nextRunAt: Date | null },
  ): Promise<void> {
    await this.db
      .createQueryBuilder()
      .update(RoutineEntity)
      .set({
        lastRunAt: firing.at,
        lastThreadId: firing.threadId,
        nextRunAt: firing.nextRunAt,
        updatedAt: new Date(),
      })
      .where('id = :id AND (last_run_at IS NULL OR last_run_at <= :at)', { id, at: firing.at })
      .execute();
  }

  /** Stops a routine that can no longer fire, saying why. */
  // crosses tenants: the worker stops a routine by id when its firing finds it cannot run
  async deactivate(id: string, reason: string): Promise<void> {
    await this.db
      .getRepository(RoutineEntity)
      .update({ id }, { active: false, inactiveReason: reason, nextRunAt: null, updatedAt: new Date() });
  }
}
