import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ErasureAcceptedResponse, ErasureResponse, NotFoundError, isRowId } from '@app/contracts';
import { auditActorOf, Caller } from '@app/identity';
import { endUserHash, ErasureRecord, ErasureRepository, recordAudit } from '@app/persistence';
import { ErasureQueue } from '@app/queues';

const toErasureResponse = (erasure: ErasureRecord): ErasureResponse => ({
  erasure_id: erasure.id,
  status: erasure.status,
  counts: erasure.counts,
  completed_at: erasure.completedAt?.toISOString() ?? null,
  user_hash: erasure.userHash,
  created_at: erasure.createdAt.toISOString(),
});

/**
 * DELETE /users/{user_id} (CONTRACTS §20): records the erasure and queues it for the workers. While one of that
 * user runs, a second request answers the same erasure (and queues it again: a no-op unless its job was lost);
 * once it is done, a new request starts a new erasure, which finds nothing left and counts nothing.
 */
@Injectable()
export class RequestErasure {
  constructor(
    private readonly db: DataSource,
    private readonly erasures: ErasureRepository,
    private readonly queue: ErasureQueue,
  ) {}

  async execute(caller: Caller, userId: string): Promise<ErasureAcceptedResponse> {
    const erasure = await this.db.transaction(async (tx) => {
      const userHash = endUserHash(caller.orgId, userId);
      const actor = auditActorOf(caller);
      const started = await this.erasures.start(tx, caller.orgId, userHash, userId, actor);
      await recordAudit(tx, {
        orgId: caller.orgId,
        actor,
        action: 'erasure.requested',
        target: { type: 'end_user', id: userHash },
        details: { erasure_id: started.id },
      });
      return started;
    });
    // After the commit, so the worker finds the row; a lost enqueue is made good by the next request or the
    // workers' next reconciliation (ReconcileSchedulers).
    await this.queue.enqueue(erasure.id);
    return { erasure_id: erasure.id };
  }
}

/** GET /erasures/{erasure_id}: the receipt, in the key's organization. */
@Injectable()
export class GetErasure {
  constructor(private readonly erasures: ErasureRepository) {}

  async execute(caller: Caller, erasureId: string): Promise<ErasureResponse> {
    const erasure = isRowId(erasureId) ? await this.erasures.find(caller.orgId, erasureId) : null;
    if (!erasure) throw new NotFoundError('Erasure not found');
    return toErasureResponse(erasure);
  }
}
