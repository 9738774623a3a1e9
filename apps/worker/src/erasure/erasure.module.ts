import { Processor } from '@nestjs/bullmq';
import { DynamicModule, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { ErasureRepository } from '@app/persistence';
import { ErasureQueue, QueuesModule } from '@app/queues';
import { RunCancellation } from '@app/run-events';
import { StorageModule } from '@app/storage';
import { ApplyRetention } from './apply-retention.use-case';
import { EraseThreads } from './erase-threads';
import { EraseUser } from './erase-user.use-case';
import { ErasureProcessor } from './erasure.processor';

/** Erasures are I/O in short transactions; two at once per worker leave the machine to the replies. */
const ERASURE_CONCURRENCY = 2;

/**
 * What a starting worker sets again: the retention scheduler, and a job for each erasure still running (its job
 * may have been lost with Redis, or have run out of attempts). The workers' reconciliation sweep does the same
 * every interval (ReconcileSchedulers).
 */
@Injectable()
export class ErasureRecovery implements OnApplicationBootstrap {
  constructor(
    private readonly queue: ErasureQueue,
    private readonly erasures: ErasureRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.scheduleRetention();
    for (const id of await this.erasures.runningIds()) await this.queue.ensureQueued(id);
  }
}

/** The `erasure` consumer: end users' erasures and the daily retention run. */
@Module({})
export class ErasureModule {
  static forRoot(settings: Settings): DynamicModule {
    Processor(
      { name: QUEUE.erasure },
      {
        concurrency: ERASURE_CONCURRENCY,
        lockDuration: settings.jobLockMs,
        stalledInterval: settings.jobStalledIntervalMs,
        // A worker killed mid-erasure leaves a stalled job: another worker takes it over and finishes it.
        maxStalledCount: 5,
      },
    )(ErasureProcessor);
    return {
      module: ErasureModule,
      imports: [QueuesModule, StorageModule],
      providers: [
        ErasureProcessor,
        EraseUser,
        EraseThreads,
        ApplyRetention,
        RunCancellation,
        ErasureRecovery,
      ],
    };
  }
}
