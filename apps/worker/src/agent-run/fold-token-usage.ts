import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RunRepository } from '@app/persistence';

/** How often ended replies' tokens reach the agents' and organizations' counters. */
const FOLD_INTERVAL_MS = 1000;

/**
 * Adds the tokens of ended replies to their agents' and organizations' counters about once a second, many replies
 * in one statement, so no reply's end waits on a counter row another reply's end holds. Budgets count the
 * replies not folded yet too (RunRepository's gate), so they stay exact; `tokens_used` as GET /agents shows it
 * lags by at most this interval. Every worker runs the timer; one folds at a time.
 */
@Injectable()
export class FoldTokenUsage implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(FoldTokenUsage.name);
  private timer?: NodeJS.Timeout;

  constructor(private readonly runs: RunRepository) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.fold(), FOLD_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.fold();
  }

  private async fold(): Promise<void> {
    await this.runs.foldTokenUsage().catch((error: Error) => {
      this.logger.warn({ err: error }, 'folding token usage failed; the next fold takes it');
    });
  }
}
