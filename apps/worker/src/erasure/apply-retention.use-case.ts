import { Injectable, Logger } from '@nestjs/common';
import { ErasureCounts, ErasureRepository } from '@app/persistence';
import { addUp, EraseThreads } from './erase-threads';

/** Threads erased per round of retention: found, then erased thread by thread in short transactions. */
const THREAD_BATCH = 20;

/**
 * The daily retention run (CONTRACTS §20): in every organization with `thread_days`, each thread whose newest
 * message is older than that is erased by the same code as an end user's threads. A thread with a live reply
 * has a recent message, so it is never one of them.
 */
@Injectable()
export class ApplyRetention {
  private readonly logger = new Logger(ApplyRetention.name);

  constructor(
    private readonly erasures: ErasureRepository,
    private readonly eraseThreads: EraseThreads,
  ) {}

  async execute(): Promise<ErasureCounts> {
    const total: ErasureCounts = {};
    for (const { orgId, before } of await this.erasures.retentionCutoffs()) {
      const counts: ErasureCounts = {};
      for (;;) {
        const threadIds = await this.erasures.staleThreadIds(orgId, before, THREAD_BATCH);
        if (threadIds.length === 0) break;
        for (const threadId of threadIds)
          addUp(counts, await this.eraseThreads.execute(orgId, [threadId], null));
      }
      if (Object.keys(counts).length > 0) this.logger.log({ orgId, counts }, 'retention erased old threads');
      addUp(total, counts);
    }
    return total;
  }
}
