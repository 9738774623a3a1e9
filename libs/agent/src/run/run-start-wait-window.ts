import { Injectable } from '@nestjs/common';

/**
 * The waits of the runs this worker started (from the reply's enqueueing to its run's start, first starts only),
 * gathered by window for admission control: the fastest start of each window, as CoDel judges a queue.
 */
@Injectable()
export class RunStartWaitWindow {
  private fastestMs: number | null = null;

  observe(waitMs: number): void {
    this.fastestMs = this.fastestMs === null ? waitMs : Math.min(this.fastestMs, waitMs);
  }

  /** The fastest wait of the window now ending, null when no run started in it, and a new window. */
  take(): number | null {
    const fastest = this.fastestMs;
    this.fastestMs = null;
    return fastest;
  }
}
