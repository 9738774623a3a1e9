import { Injectable } from '@nestjs/common';

/**
 * The runs this process is executing, by thread, so a cancellation broadcast (every worker hears it) can abort
 * the one that runs here. It steers only local work: no other process reads it.
 */
@Injectable()
export class ActiveRuns {
  private readonly byThread = new Map<string, { messageId: string; controller: AbortController }>();

  start(threadId: string, messageId: string): AbortController {
    const controller = new AbortController();
    this.byThread.set(threadId, { messageId, controller });
    return controller;
  }

  end(threadId: string, messageId: string): void {
    if (this.byThread.get(threadId)?.messageId === messageId) this.byThread.delete(threadId);
  }

  /** Aborts the thread's run if it runs here; true when there was one. */
  cancel(threadId: string): boolean {
    const run = this.byThread.get(threadId);
    if (!run) return false;
    run.controller.abort(new RunCancelledError());
    return true;
  }

  get size(): number {
    return this.byThread.size;
  }
}

/** The reason a cancelled run's signal carries. */
export class RunCancelledError extends Error {
  constructor() {
    super('the run was cancelled');
    this.name = 'RunCancelledError';
  }
}
