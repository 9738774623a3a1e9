import { decodeEvent, RunEvent, RunEventLog, UnnumberedRunEvent } from '@app/run-events';

/** What identifies an event across a resumed run; text deltas have none (they are matched by content). */
function eventKey(event: UnnumberedRunEvent): string | null {
  switch (event.type) {
    case 'message.started':
      return 'started';
    case 'step.started':
      return `step:${event.step}`;
    case 'tool.call':
      return `call:${event.step}:${event.call_id}`;
    case 'tool.result':
      return `result:${event.step}:${event.call_id}`;
    case 'questions':
      return 'questions';
    case 'approval.requested':
      return `approval:${event.step}:${event.call_id}`;
    case 'approval.decided':
      return `decided:${event.step}:${event.call_id}`;
    case 'context.compacted':
      return 'compacted';
    case 'model.fallback':
      return `fallback:${event.step}:${event.to}`;
    case 'guardrail.triggered':
      return `guardrail:${event.stage}:${event.kind}`;
    case 'message.completed':
      return 'completed';
    case 'text.delta':
      return null;
  }
}

/**
 * A reply's events so far, rebuilt from its Redis stream when a run resumes: the content streamed (joined
 * deltas, interrupted steps included), the events Message.events keeps, and which ones were already emitted,
 * so a resumed run emits each only once and numbers on after the last seq.
 *
 * An event emitted is held until PostgreSQL holds it: `stored()` after the step or result it belongs to is
 * stored; the journal (StreamJournal) stores what a step in progress holds for longer.
 */
export class RunState {
  content = '';
  readonly events: Record<string, unknown>[] = [];
  /** Length of each delta, in order: stored with the reply so a replay cuts the content the same way. */
  readonly deltaLengths: number[] = [];
  private readonly emitted = new Set<string>();
  /** The seq of the last delta line: a delta joined to it lengthens its entry in `deltaLengths`. */
  private lastDeltaSeq = -1;

  constructor(
    private readonly log: RunEventLog,
    written: RunEvent[],
  ) {
    written.forEach((event) => this.track(event));
  }

  /** Whether this run continues one that already wrote events. */
  get resumed(): boolean {
    return this.log.nextSeq > 0;
  }

  has(event: UnnumberedRunEvent): boolean {
    const key = eventKey(event);
    return key !== null && this.emitted.has(key);
  }

  /** Sends the event unless an earlier run of this reply already did; stored once `flush` resolves. */
  emitOnce(event: UnnumberedRunEvent): void {
    if (!this.has(event)) this.track(this.log.append(event));
  }

  /**
   * Appends the lines the reply's stored steps say were published (`storedRunLines`) that the log no longer
   * holds: Redis lost them. They get the seqs the first run gave them, so clients' `after` stays valid.
   */
  restore(storedLines: readonly UnnumberedRunEvent[]): void {
    for (const line of storedLines.slice(this.log.nextSeq)) this.track(this.log.append(line));
    // A step stored before delta lengths were kept is rebuilt as one delta, which cannot line up with the
    // deltas the log already holds of it: the text the log lacks goes out as one more delta.
    const stored = storedLines.map((line) => (line.type === 'text.delta' ? line.delta : '')).join('');
    if (stored.length > this.content.length && stored.startsWith(this.content))
      this.emitText(stored.slice(this.content.length));
  }

  /**
   * Appends the journaled lines (RunRepository.journal: batches of JSON lines) the log no longer holds, with
   * their own seqs: the text a step in progress had streamed when its run stopped, kept even if Redis lost it.
   * Call it after `restore`: the journal may also hold lines of steps stored since.
   */
  restoreJournal(batches: readonly string[]): void {
    const lines = batches.flatMap((batch) => batch.split('\n').map(decodeEvent));
    lines.sort((a, b) => a.seq - b.seq);
    for (const { seq, ...line } of lines) {
      if (seq === this.log.nextSeq) this.track(this.log.append(line as UnnumberedRunEvent));
    }
  }

  /** Throws RunSupersededError when another run took over the reply's log. */
  assertOwner(): Promise<void> {
    return this.log.assertOwner();
  }

  /**
   * The events emitted from now on go out at the next `stored()`, not before, whatever the stream journal does:
   * for lines a client may act on only once a statement still to come is committed.
   */
  keepFromJournal(): void {
    this.log.keepFromJournal();
  }

  /** PostgreSQL holds every event emitted so far: they may be published. */
  stored(): void {
    this.log.release();
  }

  /**
   * What was streamed after the first `contentLength` characters of the content (a step's share, when given
   * where the step before it ended): the text and the length of each of its deltas.
   */
  streamedAfter(contentLength: number): { text: string; deltaLengths: number[] } {
    let covered = 0;
    let first = 0;
    while (first < this.deltaLengths.length && covered < contentLength) covered += this.deltaLengths[first++];
    return { text: this.content.slice(contentLength), deltaLengths: this.deltaLengths.slice(first) };
  }

  /**
   * Takes back the text streamed so far (a guardrail stopped the reply, CONTRACTS §24) from what the reply stores
   * and from its log: the content is emptied and each of its deltas kept as an empty one, so seqs stay whole in a
   * replay and the deltas a reopened stream replays join to the stored content.
   */
  async withdrawText(): Promise<void> {
    this.content = '';
    this.deltaLengths.fill(0);
    await this.log.withdrawText();
  }

  /** Streams text: a delta of its own, or joined to the one still held before it (RunEventLog.appendText). */
  emitText(delta: string): void {
    if (!delta) return;
    const line = this.log.appendText(delta);
    this.content += delta;
    if (line.seq === this.lastDeltaSeq) this.deltaLengths[this.deltaLengths.length - 1] += delta.length;
    else {
      this.deltaLengths.push(delta.length);
      this.lastDeltaSeq = line.seq;
    }
  }

  /**
   * Waits until every event released is in Redis: before a tool that changes something runs (a run that lost
   * its log to another worker finds out first), and at the end of the run.
   */
  flush(): Promise<void> {
    return this.log.flush();
  }

  private track(event: RunEvent): void {
    const key = eventKey(event);
    if (key !== null) this.emitted.add(key);
    if (event.type === 'text.delta') {
      this.content += event.delta;
      this.deltaLengths.push(event.delta.length);
      this.lastDeltaSeq = event.seq;
    } else if (event.type !== 'message.completed') {
      // Message.events keeps every line but the deltas and message.completed (CONTRACTS §5).
      this.events.push(event as unknown as Record<string, unknown>);
    }
  }
}
