import { Injectable, Logger } from '@nestjs/common';
import { ErasureCounts, ErasureRepository, RetentionRepository } from '@app/persistence';
import { addUp, EraseThreads } from './erase-threads';
import { StopReplies } from './stop-replies';

/** Threads erased per round of retention: found, then erased thread by thread in short transactions. */
const THREAD_BATCH = 20;

/**
 * The daily retention run (CONTRACTS §20): in every organization with `thread_days`, each thread whose newest
 * message is older than that is erased by the same code as an end user's threads. A thread that still has a live
 * reply (one waiting for a person longer than `thread_days`) first has it ended through the cancel path
 * (StopReplies: counted, reported `message.cancelled`), and is erased by the next run, once that end was told.
 */
@Injectable()
export class ApplyRetention {
  private readonly logger = new Logger(ApplyRetention.name);

  constructor(
    private readonly retention: RetentionRepository,
    private readonly erasures: ErasureRepository,
    private readonly eraseThreads: EraseThreads,
    private readonly stopReplies: StopReplies,
  ) {}

  async execute(): Promise<ErasureCounts> {
    const startedAt = new Date();
    const total: ErasureCounts = {};
    for (const { orgId, before } of await this.retention.retentionCutoffs()) {
      for (;;) {
        const live = await this.retention.staleLiveThreadIds(orgId, before, THREAD_BATCH);
        if (live.length === 0) break;
        await this.stopReplies.cancel(orgId, live);
        this.logger.log({ orgId, threads: live.length }, 'retention stopped the live replies of old threads');
        // A running reply is its worker's to end: the next run finds its thread again.
        if ((await this.erasures.runningReplies(live)) > 0) break;
      }
      const counts: ErasureCounts = {};
      for (;;) {
        const threadIds = await this.retention.staleThreadIds(orgId, before, startedAt, THREAD_BATCH);
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
