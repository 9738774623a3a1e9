import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { ReplyAdmission } from '@app/chat';
import { Settings } from '@app/config';
import { AtCapacityError } from '@app/contracts';
import { AgentRunQueue, RunStartWaits } from '@app/queues';
import { ReplyStartLatency } from './reply-start-latency';

/** How often the backlog and the event loop's delay are sampled: a refusal decision is at most this old. */
const SAMPLE_INTERVAL_MS = 250;

/** The event-loop delay histogram's resolution, in ms: finer costs more timer wake-ups for nothing we use. */
const LOOP_DELAY_RESOLUTION_MS = 20;

/** What a refused client is told to wait: a backlog of a few hundred runs drains in seconds. */
export const AT_CAPACITY_RETRY_AFTER_SECONDS = 1;

/** What admission control looked at last (GET /health/admission). */
export interface AdmissionState {
  admitting: boolean;
  /** Runs waiting for a worker slot, every gateway's included. */
  queued_runs: number;
  /** This gateway's event-loop delay, p99 of the last sample interval, in ms. */
  event_loop_delay_ms: number;
  /** How long this gateway took to start a reply: the fastest start of the last sample interval, in ms. */
  reply_start_ms: number;
  /** How long runs waited for a worker: the longest of the workers' latest figures (RunStartWaits), in ms. */
  run_start_wait_ms: number;
}

/**
 * A figure past its limit counts only when it stays there for two samples running: one long pause (a collection,
 * a large body parsed, a cold plan) is not a full box, and refusing on it would turn away requests a moment later
 * served at once.
 */
class SustainedOverLimit {
  private wasOver = false;

  /** Whether this sample and the one before were both over the limit. */
  next(over: boolean): boolean {
    const sustained = over && this.wasOver;
    this.wasOver = over;
    return sustained;
  }
}

/**
 * Admission control: decides from figures sampled in the background whether a new reply may start, so a refusal
 * costs a comparison, not a query, and comes back in microseconds even when the box is out of CPU. Past capacity
 * (the run backlog, the event loop's delay, the time a reply's start takes or the time runs wait for a worker at
 * their limits, ADMISSION_MAX_*) a reply-starting request is refused before anything is stored; what was accepted
 * before runs on untouched.
 */
@Injectable()
export class RunAdmission implements ReplyAdmission, OnModuleInit, OnModuleDestroy {
  private readonly loopDelay: IntervalHistogram | null;
  private timer: NodeJS.Timeout | null = null;
  private sampling = false;
  private readonly loopSlow = new SustainedOverLimit();
  private readonly startsSlow = new SustainedOverLimit();
  private readonly runsWaitLong = new SustainedOverLimit();
  private readonly startLatency = new ReplyStartLatency();
  private state: AdmissionState = {
    admitting: true,
    queued_runs: 0,
    event_loop_delay_ms: 0,
    reply_start_ms: 0,
    run_start_wait_ms: 0,
  };

  constructor(
    private readonly settings: Settings,
    private readonly runs: AgentRunQueue,
    private readonly runStartWaits: RunStartWaits,
  ) {
    this.loopDelay =
      settings.admissionMaxEventLoopDelayMs > 0
        ? monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS })
        : null;
  }

  onModuleInit(): void {
    const { admissionMaxQueuedRuns, admissionMaxReplyStartMs, admissionMaxRunStartWaitMs } = this.settings;
    if (
      !admissionMaxQueuedRuns &&
      !admissionMaxReplyStartMs &&
      !admissionMaxRunStartWaitMs &&
      !this.loopDelay
    )
      return;
    this.loopDelay?.enable();
    this.timer = setInterval(() => void this.sample(), SAMPLE_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.loopDelay?.disable();
  }

  get current(): AdmissionState {
    return this.state;
  }

  /**
   * Throws AtCapacityError (503 with Retry-After) when a new reply should not start now.
   */
  admitReply(): void {
    if (!this.state.admitting)
      throw new AtCapacityError('Service at capacity; retry later', AT_CAPACITY_RETRY_AFTER_SECONDS);
  }

  /** ReplyAdmission: refused at capacity before `start` runs, else `start` timed until it settles. */
  async admit<T>(start: () => Promise<T>): Promise<T> {
    this.admitReply();
    const ended = this.startLatency.begin();
    try {
      return await start();
    } finally {
      ended();
    }
  }

  private async sample(): Promise<void> {
    if (this.sampling) return;
    this.sampling = true;
    try {
      const delayMs = this.loopDelay ? this.loopDelay.percentile(99) / 1e6 : 0;
      this.loopDelay?.reset();
      const startMs = this.startLatency.takeWindow();
      const {
        admissionMaxQueuedRuns: maxQueued,
        admissionMaxEventLoopDelayMs: maxDelay,
        admissionMaxReplyStartMs: maxStart,
        admissionMaxRunStartWaitMs: maxWait,
      } = this.settings;
      const [queued, waitMs] = await Promise.all([
        maxQueued > 0 ? this.queuedRuns() : 0,
        maxWait > 0 ? this.runStartWait() : 0,
      ]);
      const loopFull = this.loopSlow.next(maxDelay > 0 && delayMs >= maxDelay);
      const startsFull = this.startsSlow.next(maxStart > 0 && startMs >= maxStart);
      const runsWaitFull = this.runsWaitLong.next(maxWait > 0 && waitMs >= maxWait);
      this.state = {
        admitting: !(maxQueued > 0 && queued >= maxQueued) && !loopFull && !startsFull && !runsWaitFull,
        queued_runs: queued,
        event_loop_delay_ms: Math.round(delayMs),
        reply_start_ms: Math.round(startMs),
        run_start_wait_ms: waitMs,
      };
    } finally {
      this.sampling = false;
    }
  }

  /** Redis not answering: no figure, so no refusal on it (a write is refused for Redis itself elsewhere). */
  private async queuedRuns(): Promise<number> {
    try {
      return (await this.runs.outstanding()).waiting;
    } catch {
      return 0;
    }
  }

  /** The same for the workers' start waits. */
  private async runStartWait(): Promise<number> {
    try {
      return await this.runStartWaits.longest();
    } catch {
      return 0;
    }
  }
}
