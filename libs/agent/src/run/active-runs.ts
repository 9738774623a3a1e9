import { Injectable } from '@nestjs/common';

/**
 * How long a request to stop one reply is remembered when that reply does not run here yet: a run that was
 * marked running in PostgreSQL but has not registered below when the broadcast lands still stops.
 */
const EARLY_CANCEL_MEMORY_MS = 60_000;

/**
 * The runs this process is executing, by thread, so a cancellation broadcast (every worker hears it) can abort
 * the one that runs here. It steers only local work: no other process reads it.
 */
@Injectable()
export class ActiveRuns {
  private readonly byThread = new Map<string, { messageId: string; controller: AbortController }>();
  /** Replies asked to stop before they ran here, with when the request came. */
  private readonly cancelledBeforeStart = new Map<string, number>();
  private handingBack = false;

  /**
   * True once the worker hands its runs back (handBackAll): a job it still receives must go back too. A paused
   * BullMQ worker can receive one more job, when the wait for a job it was in when paused returns one.
   */
  get stopping(): boolean {
    return this.handingBack;
  }

  start(threadId: string, messageId: string): AbortController {
    const controller = new AbortController();
    this.byThread.set(threadId, { messageId, controller });
    if (this.handingBack) controller.abort(new RunHandedBackError());
    else if (this.cancelledBeforeStart.delete(messageId)) controller.abort(new RunCancelledError());
    return controller;
  }

  end(threadId: string, messageId: string): void {
    if (this.byThread.get(threadId)?.messageId === messageId) this.byThread.delete(threadId);
  }

  /**
   * Aborts the thread's run if it runs here (only when it is `messageId`'s, if given); true when there was one.
   * A named reply that does not run here is remembered for a while, in case it is about to start here.
   */
  cancel(threadId: string, messageId?: string): boolean {
    const run = this.byThread.get(threadId);
    if (!run || (messageId !== undefined && run.messageId !== messageId)) {
      if (messageId !== undefined) this.rememberCancel(messageId);
      return false;
    }
    run.controller.abort(new RunCancelledError());
    return true;
  }

  /**
   * Stops every run of this process without ending its reply (the worker is stopping): each run throws
   * RunHandedBackError and its job goes back to the queue for another worker to resume at the last stored step.
   * A run started after this is handed back at once.
   */
  handBackAll(): number {
    this.handingBack = true;
    for (const run of this.byThread.values()) run.controller.abort(new RunHandedBackError());
    return this.byThread.size;
  }

  get size(): number {
    return this.byThread.size;
  }

  private rememberCancel(messageId: string): void {
    const now = Date.now();
    for (const [id, at] of this.cancelledBeforeStart) {
      if (now - at > EARLY_CANCEL_MEMORY_MS) this.cancelledBeforeStart.delete(id);
    }
    this.cancelledBeforeStart.set(messageId, now);
  }
}

/** The reason a cancelled run's signal carries. */
export class RunCancelledError extends Error {
  constructor() {
    super('the run was cancelled');
    this.name = 'RunCancelledError';
  }
}

/** The reason a run handed back by a stopping worker carries; its reply stays live, its job is requeued. */
export class RunHandedBackError extends Error {
  constructor() {
    super('the worker is stopping: run handed back to the queue');
    this.name = 'RunHandedBackError';
  }
}

/**
 * The reason a run carries when this worker took its job again (the job's lock was lost) and the newer execution
 * took over: it stops as a handed-back run does, without ending its reply, and leaves the job to that execution.
 */
export class RunReplacedError extends RunHandedBackError {
  constructor() {
    super();
    this.message = 'a newer execution of the same job took over in this worker: run stopped';
    this.name = 'RunReplacedError';
  }
}
