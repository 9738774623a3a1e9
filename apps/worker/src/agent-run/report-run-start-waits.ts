import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { RunStartWaitWindow } from '@app/agent';
import { RunStartWaits } from '@app/queues';

/** As often as the gateways sample their admission figures. */
const REPORT_INTERVAL_MS = 250;

/**
 * Tells the gateways, every quarter second in which this worker started runs, how long the fastest of them had
 * waited since its enqueueing (RunStartWaits): their admission control refuses new replies while that wait stands
 * long, which is a queue in front of the workers that neither the gateways' own figures nor the queue's length
 * measure in time. A window without starts reports nothing: the last figure stands (or goes stale) until one.
 */
@Injectable()
export class ReportRunStartWaits implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ReportRunStartWaits.name);
  private readonly workerId = randomUUID();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly window: RunStartWaitWindow,
    private readonly waits: RunStartWaits,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.report(), REPORT_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async report(): Promise<void> {
    const fastestMs = this.window.take();
    if (fastestMs === null) return;
    // Redis away: the figure goes stale on the gateways, which then do not refuse on it; the runs are unaffected.
    await this.waits.report(this.workerId, fastestMs).catch((error: Error) => {
      this.logger.debug({ err: error.message }, 'run start wait not reported');
    });
  }
}
