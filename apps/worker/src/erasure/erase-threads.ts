import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { Db, ErasureCounts, ErasureRepository } from '@app/persistence';
import { REDIS } from '@app/redis';
import { runEventKeys } from '@app/run-events';
import { StorageDriver } from '@app/storage';

/** Messages deleted per transaction: a thread of any length is removed in short transactions. */
export const MESSAGE_BATCH = 500;

/** Adds one batch's counts up; `into` keeps the sum of every batch. */
export function addUp(into: ErasureCounts, counts: ErasureCounts): void {
  for (const [kind, n] of Object.entries(counts)) if (n > 0) into[kind] = (into[kind] ?? 0) + n;
}

/**
 * Deletes threads for good, for an end user's erasure and for retention alike: the bytes of the files their
 * messages hold, then those files, then their messages newest first (each message's run events in Redis first),
 * then the threads; each step its own short transaction, so no lock is held for long and a run stopped anywhere
 * can run again from the start and find only what is left. With an erasure id, each transaction adds its counts
 * to that receipt.
 */
@Injectable()
export class EraseThreads {
  constructor(
    private readonly db: DataSource,
    private readonly erasures: ErasureRepository,
    private readonly storage: StorageDriver,
    private readonly settings: Settings,
    @Inject(REDIS) private readonly redis: Redis,
    @InjectQueue(QUEUE.agentRun) private readonly agentRuns: Queue,
  ) {}

  async execute(orgId: string, threadIds: string[], erasureId: string | null): Promise<ErasureCounts> {
    const total: ErasureCounts = {};
    const files = await this.erasures.threadFiles(orgId, threadIds);
    if (files.length > 0) {
      await Promise.all(files.map((file) => this.storage.delete(file.storageKey)));
      addUp(
        total,
        await this.inTransaction(erasureId, (tx) =>
          this.erasures.deleteFiles(
            tx,
            orgId,
            files.map((f) => f.id),
          ),
        ),
      );
    }
    for (;;) {
      const messageIds = await this.erasures.messageBatch(threadIds, MESSAGE_BATCH);
      if (messageIds.length === 0) break;
      await this.deleteRunEvents(messageIds);
      addUp(
        total,
        await this.inTransaction(erasureId, (tx) => this.erasures.deleteMessages(tx, orgId, messageIds)),
      );
    }
    addUp(
      total,
      await this.inTransaction(erasureId, (tx) => this.erasures.deleteThreads(tx, orgId, threadIds)),
    );
    return total;
  }

  /** One batch's deletes and, for an erasure, its counts on the receipt: committed together. */
  async inTransaction(
    erasureId: string | null,
    work: (tx: Db) => Promise<ErasureCounts>,
  ): Promise<ErasureCounts> {
    return this.db.transaction(async (tx) => {
      const counts = await work(tx);
      if (erasureId) await this.erasures.addCounts(tx, erasureId, counts);
      return counts;
    });
  }

  /**
   * A reply's replay log and owner token (a live channel keeps nothing; one slot per message on a cluster), and
   * its agent-run job kept after it ended (the job id is the message id). A job still locked by a run is left:
   * its run ended cancelled, and the job goes with BullMQ's cleanup of finished jobs.
   */
  private async deleteRunEvents(messageIds: string[]): Promise<void> {
    await Promise.all(
      messageIds.map(async (id) => {
        const keys = runEventKeys(this.settings.redisPrefix, id);
        await this.redis.del(keys.stream, keys.owner);
        await this.agentRuns.remove(id).catch(() => 0);
      }),
    );
  }
}
