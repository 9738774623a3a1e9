import { Processor } from '@nestjs/bullmq';
import { Settings } from '@app/config';

/** What differs between the worker's consumers: how many jobs at once, and how often a job may stall. */
interface ConsumerOptions {
  concurrency: number;
  /** BullMQ's default (1) when absent. */
  maxStalledCount?: number;
}

/**
 * Declares `processor` the consumer of `queue`, in its module's forRoot rather than on the class, so that it
 * takes the job lock and the stall check from Settings (JOB_LOCK_MS, JOB_STALLED_INTERVAL_MS) as every consumer
 * of the worker does.
 */
export function declareConsumer(
  processor: abstract new (...args: never[]) => object,
  queue: string,
  settings: Settings,
  options: ConsumerOptions,
): void {
  Processor(
    { name: queue },
    { lockDuration: settings.jobLockMs, stalledInterval: settings.jobStalledIntervalMs, ...options },
  )(processor);
}
