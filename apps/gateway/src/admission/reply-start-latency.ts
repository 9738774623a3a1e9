/**
 * How long this gateway takes to start a reply (the handler that stores it and enqueues its run), judged as CoDel
 * judges a queue: by the fastest start of a window, not the slowest. One slow start is an outlier (a cold plan, a
 * lock); when even the fastest start of a quarter second took longer than the bound, requests queue in front of
 * PostgreSQL or the connection pool, and admitting more only lengthens that queue. Neither the run backlog (the
 * runs are not enqueued yet) nor the event loop's delay (the loop is idle, waiting on the database) sees it.
 */
export class ReplyStartLatency {
  private fastestMs: number | null = null;

  /** Marks a start begun; call the answer when it has ended, however it ended (once counts). */
  begin(): () => void {
    const startedAt = performance.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const ms = performance.now() - startedAt;
      this.fastestMs = this.fastestMs === null ? ms : Math.min(this.fastestMs, ms);
    };
  }

  /**
   * The figure of the window now ending, in ms, and a new window: the fastest start that ended in it, 0 when none
   * did. Starts still under way do not count: a start held on purpose (a thread's lock, an outage's timeout) is not
   * a queue, and refusing everyone for it would fail requests the database would serve.
   */
  takeWindow(): number {
    const fastest = this.fastestMs ?? 0;
    this.fastestMs = null;
    return fastest;
  }
}
