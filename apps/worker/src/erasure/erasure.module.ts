import { DynamicModule, Module } from '@nestjs/common';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { QueuesModule } from '@app/queues';
import { RunCancellation } from '@app/run-events';
import { StorageModule } from '@app/storage';
import { declareConsumer } from '../jobs/declare-consumer';
import { ApplyRetentionJobHandler } from './apply-retention.job-handler';
import { ApplyRetention } from './apply-retention.use-case';
import { EraseThreads } from './erase-threads';
import { EraseUserJobHandler } from './erase-user.job-handler';
import { EraseUser } from './erase-user.use-case';
import { ErasureProcessor } from './erasure.processor';
import { ReplyTraces } from './reply-traces';
import { StopReplies } from './stop-replies';

/** Erasures are I/O in short transactions; two at once per worker leave the machine to the replies. */
const ERASURE_CONCURRENCY = 2;

/**
 * The `erasure` consumer: end users' erasures and the daily retention run. Their jobs are set again from
 * PostgreSQL at a worker's start and every sweep interval by ReconcileSchedulers.
 */
@Module({})
export class ErasureModule {
  static forRoot(settings: Settings): DynamicModule {
    // A worker killed mid-erasure leaves a stalled job: another worker takes it over and finishes it.
    declareConsumer(ErasureProcessor, QUEUE.erasure, settings, {
      concurrency: ERASURE_CONCURRENCY,
      maxStalledCount: 5,
    });
    return {
      module: ErasureModule,
      imports: [QueuesModule, StorageModule],
      providers: [
        ErasureProcessor,
        EraseUserJobHandler,
        ApplyRetentionJobHandler,
        EraseUser,
        EraseThreads,
        ApplyRetention,
        StopReplies,
        ReplyTraces,
        RunCancellation,
      ],
    };
  }
}
