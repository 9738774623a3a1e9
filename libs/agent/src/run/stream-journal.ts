import { Injectable, Logger } from '@nestjs/common';
import { Settings } from '@app/config';
import { JournalBatch, RunRepository } from '@app/persistence';
import { RunEventLog } from '@app/run-events';

/**
 * How long a reply's first journaled lines may wait: its first words are what a person waits for, so they go out
 * at once (with those of the replies starting in the same few milliseconds); the rest wait STREAM_HOLD_MS.
 */
const FIRST_LINES_HOLD_MS = 10;

/**
 * Store, then publish, for a step in progress: the lines a run holds (RunEventLog) are stored here, those of
 * every run of this process that are due in one statement (a group commit), then released to Redis. So a client
 * never sees a word that PostgreSQL does not hold, while a step's own row is written only when its model call
 * ends. A failed write keeps the lines held; the next interval tries again.
 *
 * The interval is STREAM_HOLD_MS: how long lines may wait for their step's own store before the journal stores
 * them. A reply that a model answers at once is stored with its final row before it passes and costs the journal
 * nothing; a model that streams for seconds gets its first words to clients at once and the rest at most this
 * much later, plus one commit; the words of one interval travel together (one row, one Redis call, one client
 * write), so what a streamed word costs falls as the interval grows.
 */
@Injectable()
export class StreamJournal {
  private readonly logger = new Logger(StreamJournal.name);
  /** Logs with held lines, and when the journal stores them (Date.now()). */
  private readonly due = new Map<RunEventLog, number>();
  /** Logs the journal stored lines of: their next lines wait the whole interval. */
  private readonly started = new WeakSet<RunEventLog>();
  /** The write under way of each log in it: settles (never rejects) once that write is over. */
  private readonly writing = new Map<RunEventLog, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;

  constructor(
    private readonly settings: Settings,
    private readonly runs: RunRepository,
  ) {}

  /** From now on, lines the log holds for STREAM_HOLD_MS are stored here and released. */
  watch(log: RunEventLog): void {
    log.onHeld = (held) => this.schedule(held);
  }

  /**
   * Stores nothing more of the log, and resolves once a write of its lines under way is over: a run ends after
   * this, so its final statement (which deletes the reply's journal rows) never runs before that write's insert.
   */
  unwatch(log: RunEventLog): Promise<void> {
    log.onHeld = null;
    this.due.delete(log);
    return this.writing.get(log) ?? Promise.resolve();
  }

  private schedule(log: RunEventLog, retry = false): void {
    if (this.due.has(log)) return;
    const hold =
      this.started.has(log) || retry
        ? this.settings.streamHoldMs
        : Math.min(FIRST_LINES_HOLD_MS, this.settings.streamHoldMs);
    const at = Date.now() + hold;
    this.due.set(log, at);
    this.wakeAt(at);
  }

  private wakeAt(at: number): void {
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => void this.write(), Math.max(0, at - Date.now()));
  }

  private async write(): Promise<void> {
    this.timer = null;
    this.timerAt = Infinity;
    // Lines due within the next few milliseconds ride along: one statement costs less than two.
    const horizon = Date.now() + FIRST_LINES_HOLD_MS;
    const logs: RunEventLog[] = [];
    let next = Infinity;
    for (const [log, at] of this.due) {
      if (at <= horizon) logs.push(log);
      else next = Math.min(next, at);
    }
    for (const log of logs) this.due.delete(log);
    if (next < Infinity) this.wakeAt(next);
    const pending = logs
      .map((log) => ({ log, events: log.takeHeld() }))
      .filter(({ events }) => events.length > 0);
    if (pending.length === 0) return;
    const batches: JournalBatch[] = pending.map(({ log, events }) => ({
      messageId: log.messageId,
      firstSeq: events[0].seq,
      lines: events.map((event) => log.encoded(event)).join('\n'),
    }));
    const stored = this.runs.journal(batches).then(
      () => true,
      (error: unknown) => {
        this.logger.warn({ err: error, replies: batches.length }, 'stream journal write failed; retrying');
        return false;
      },
    );
    const over = stored.then(() => undefined);
    for (const { log } of pending) this.writing.set(log, over);
    const ok = await stored;
    for (const { log } of pending) if (this.writing.get(log) === over) this.writing.delete(log);
    if (!ok) {
      for (const { log } of pending) if (log.onHeld) this.schedule(log, true);
      return;
    }
    for (const { log, events } of pending) {
      this.started.add(log);
      log.release(events[events.length - 1].seq);
      // Lines held while the write was under way wait for the next one.
      if (log.onHeld && log.holding) this.schedule(log);
    }
  }
}
