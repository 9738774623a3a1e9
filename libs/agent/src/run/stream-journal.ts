import { Injectable, Logger } from '@nestjs/common';
import { Settings } from '@app/config';
import { JournalBatch, RunRepository } from '@app/persistence';
import { encodeEvent, RunEventLog } from '@app/run-events';

/**
 * Store, then publish, for a step in progress: the lines a run holds (RunEventLog) are stored here, those of
 * every run of this process in one statement per interval (a group commit), then released to Redis. So a client
 * never sees a word that PostgreSQL does not hold, while a step's own row is written only when its model call
 * ends. A failed write keeps the lines held; the next interval tries again.
 *
 * The interval is STREAM_HOLD_MS: how long lines may wait for their step's own store before the journal stores
 * them. A reply that a model answers at once is stored with its final row before it passes and costs the journal
 * nothing; a model that streams for seconds gets its words to clients at most this much later, plus one commit,
 * and the words of one interval travel as one line (one Redis call, one client write).
 */
@Injectable()
export class StreamJournal {
  private readonly logger = new Logger(StreamJournal.name);
  private readonly waiting = new Set<RunEventLog>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly settings: Settings,
    private readonly runs: RunRepository,
  ) {}

  /** From now on, lines the log holds for JOURNAL_HOLD_MS are stored here and released. */
  watch(log: RunEventLog): void {
    log.onHeld = (held) => this.schedule(held);
  }

  unwatch(log: RunEventLog): void {
    log.onHeld = null;
    this.waiting.delete(log);
  }

  private schedule(log: RunEventLog): void {
    this.waiting.add(log);
    this.timer ??= setTimeout(() => void this.write(), this.settings.streamHoldMs);
  }

  private async write(): Promise<void> {
    this.timer = null;
    const logs = [...this.waiting];
    this.waiting.clear();
    const pending = logs
      .map((log) => ({ log, events: log.takeHeld() }))
      .filter(({ events }) => events.length > 0);
    if (pending.length === 0) return;
    const batches: JournalBatch[] = pending.map(({ log, events }) => ({
      messageId: log.messageId,
      firstSeq: events[0].seq,
      lines: events.map(encodeEvent).join('\n'),
    }));
    try {
      await this.runs.journal(batches);
    } catch (error) {
      this.logger.warn({ err: error, replies: batches.length }, 'stream journal write failed; retrying');
      for (const { log } of pending) if (log.onHeld) this.schedule(log);
      return;
    }
    for (const { log, events } of pending) {
      log.release(events[events.length - 1].seq);
      // Lines held while the write was under way wait for the next one.
      if (log.onHeld && log.holding) this.schedule(log);
    }
  }
}
