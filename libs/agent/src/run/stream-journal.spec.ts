import { Settings } from '@app/config';
import { JournalBatch, RunRepository } from '@app/persistence';
import { RunEventLog } from '@app/run-events';
import { MemoryRunEventLog } from '../testing/memory-run-event-log';
import { StreamJournal } from './stream-journal';

const HOLD_MS = 200;

/** A memory log that tells the journal when it starts holding lines, as RunEventLog does. */
function heldLog(messageId: string): MemoryRunEventLog & { delta(text: string): void } {
  const log = Object.assign(new MemoryRunEventLog(), { messageId });
  return Object.assign(log, {
    delta(text: string) {
      const wasHolding = log.holding;
      log.append({ type: 'text.delta', delta: text });
      if (!wasHolding) log.onHeld?.(log as unknown as RunEventLog);
    },
  });
}

describe('StreamJournal', () => {
  let writes: JournalBatch[][];
  let failNext: boolean;
  let journal: StreamJournal;

  beforeEach(() => {
    jest.useFakeTimers();
    writes = [];
    failNext = false;
    const runs = {
      journal: (batches: JournalBatch[]) => {
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('connection lost'));
        }
        writes.push(batches);
        return Promise.resolve();
      },
    } as unknown as RunRepository;
    journal = new StreamJournal({ streamHoldMs: HOLD_MS } as Settings, runs);
  });

  afterEach(() => jest.useRealTimers());

  it("stores and releases a reply's first lines at once and its later lines once per interval", async () => {
    const log = heldLog('m1');
    journal.watch(log.asLog());
    log.delta('Hello');
    await jest.advanceTimersByTimeAsync(15);
    expect(writes).toHaveLength(1);
    expect(log.published.map((e) => e.seq)).toEqual([0]);

    log.delta(' there');
    await jest.advanceTimersByTimeAsync(HOLD_MS / 2);
    log.delta(' you');
    expect(writes).toHaveLength(1);
    expect(log.published).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(HOLD_MS / 2 + 5);
    // The interval's two words in one row, released together.
    expect(writes).toHaveLength(2);
    expect(writes[1]).toEqual([{ messageId: 'm1', firstSeq: 1, lines: expect.stringContaining('\n') }]);
    expect(log.published.map((e) => e.seq)).toEqual([0, 1, 2]);
  });

  it("neither stores nor releases the lines kept for the run's own release (an approval request)", async () => {
    const log = heldLog('m1');
    journal.watch(log.asLog());
    log.delta('Hello');
    log.keepFromJournal();
    log.append({ type: 'approval.requested', step: 0, call_id: 'c1', name: 'clock', arguments: {} });
    await jest.advanceTimersByTimeAsync(HOLD_MS * 3);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toEqual([
      { messageId: 'm1', firstSeq: 0, lines: expect.not.stringContaining('approval') },
    ]);
    expect(log.published.map((e) => e.seq)).toEqual([0]);

    log.release();
    expect(log.published.map((e) => e.seq)).toEqual([0, 1]);
  });

  it('stores the lines of every run due at the same time in one statement', async () => {
    const [a, b] = [heldLog('a'), heldLog('b')];
    journal.watch(a.asLog());
    journal.watch(b.asLog());
    a.delta('x');
    b.delta('y');
    await jest.advanceTimersByTimeAsync(15);
    expect(writes).toHaveLength(1);
    expect(writes[0].map((batch) => batch.messageId)).toEqual(['a', 'b']);
  });

  it('keeps lines held when the write fails and tries again after an interval, not at once', async () => {
    const log = heldLog('m1');
    journal.watch(log.asLog());
    failNext = true;
    log.delta('Hello');
    await jest.advanceTimersByTimeAsync(15);
    expect(log.published).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(HOLD_MS / 2);
    expect(writes).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(HOLD_MS / 2 + 5);
    expect(writes).toHaveLength(1);
    expect(log.published.map((e) => e.seq)).toEqual([0]);
  });

  it('lets go of a log only once a write of its lines under way is over', async () => {
    let finishWrite!: () => void;
    journal = new StreamJournal(
      { streamHoldMs: HOLD_MS } as Settings,
      {
        journal: () => new Promise<void>((resolve) => (finishWrite = resolve)),
      } as unknown as RunRepository,
    );
    const log = heldLog('m1');
    journal.watch(log.asLog());
    log.delta('Hello');
    await jest.advanceTimersByTimeAsync(15);
    let unwatched = false;
    const letGo = journal.unwatch(log.asLog()).then(() => (unwatched = true));
    await jest.advanceTimersByTimeAsync(5);
    expect(unwatched).toBe(false);
    finishWrite();
    await letGo;
    expect(log.published.map((e) => e.seq)).toEqual([0]);
  });

  it('stores nothing more of a log it no longer watches', async () => {
    const log = heldLog('m1');
    journal.watch(log.asLog());
    log.delta('Hello');
    await journal.unwatch(log.asLog());
    await jest.advanceTimersByTimeAsync(HOLD_MS * 2);
    expect(writes).toHaveLength(0);
  });
});
