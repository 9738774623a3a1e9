import { RunEvent, RunEventLog, UnnumberedRunEvent } from '@app/run-events';

type LogSurface = Pick<
  RunEventLog,
  | 'nextSeq'
  | 'append'
  | 'appendText'
  | 'encoded'
  | 'release'
  | 'keepFromJournal'
  | 'takeHeld'
  | 'holding'
  | 'flush'
  | 'assertOwner'
  | 'withdrawText'
  | 'onHeld'
>;

/**
 * The run-event log's surface the runtime uses, kept in memory for unit specs: what was appended, and what was
 * released for publishing (`published`), so a spec can tell what a client could have seen at any moment.
 */
export class MemoryRunEventLog implements LogSurface {
  readonly appended: RunEvent[] = [];
  readonly published: RunEvent[] = [];
  flushes = 0;
  onHeld: ((log: RunEventLog) => void) | null = null;
  /** How the next flush goes: at once, after a delay, or failing (Redis lost). */
  flushing: () => Promise<void> = () => Promise.resolve();
  /** False once another run claimed the log. */
  owned = true;

  private journalLimit = Infinity;

  constructor(private next = 0) {}

  get nextSeq(): number {
    return this.next;
  }

  append(event: UnnumberedRunEvent): RunEvent {
    const numbered = { seq: this.next++, ...event } as RunEvent;
    this.appended.push(numbered);
    return numbered;
  }

  /** Never joins deltas: a spec sees each one the runtime streamed (RunEventLog's joining has its own tests). */
  appendText(delta: string): RunEvent {
    return this.append({ type: 'text.delta', delta });
  }

  encoded(event: RunEvent): string {
    return JSON.stringify(event);
  }

  heldEvents(): RunEvent[] {
    return this.appended.filter((event) => !this.published.includes(event));
  }

  keepFromJournal(): void {
    this.journalLimit = Math.min(this.journalLimit, this.next);
  }

  takeHeld(): RunEvent[] {
    return this.heldEvents().filter((event) => event.seq < this.journalLimit);
  }

  get holding(): boolean {
    return this.heldEvents().length > 0;
  }

  release(throughSeq = this.next - 1): void {
    if (throughSeq >= this.journalLimit) this.journalLimit = Infinity;
    for (const event of this.heldEvents()) if (event.seq <= throughSeq) this.published.push(event);
  }

  flush(): Promise<void> {
    this.flushes++;
    return this.flushing();
  }

  /** Empties every delta appended so far, published ones too: what the Redis log then replays. */
  withdrawText(): Promise<void> {
    for (const event of this.appended) if (event.type === 'text.delta') event.delta = '';
    return this.flush();
  }

  assertOwner(): Promise<void> {
    return this.owned ? Promise.resolve() : Promise.reject(new Error('superseded'));
  }

  /** This fake as the type RunState takes. */
  asLog(): RunEventLog {
    return this as unknown as RunEventLog;
  }
}
