import { RunEvent } from '@app/run-events';
import { RunState } from './run-state';
import { MemoryRunEventLog as MemoryLog } from '../testing/memory-run-event-log';

const stateOver = (log: MemoryLog, written: RunEvent[] = []) => new RunState(log.asLog(), written);

describe('RunState', () => {
  it('joins the deltas into the content and keeps only the persisted events', () => {
    const log = new MemoryLog();
    const state = stateOver(log);
    state.emitOnce({ type: 'message.started', message_id: 'm', thread_id: 't' });
    state.emitOnce({ type: 'step.started', step: 1 });
    state.emitText('Hel');
    state.emitText('');
    state.emitText('lo');
    state.emitOnce({ type: 'message.completed', message: {} });

    expect(state.content).toBe('Hello');
    expect(state.deltaLengths).toEqual([3, 2]);
    expect(state.events.map((event) => event.type)).toEqual(['message.started', 'step.started']);
    expect(log.appended.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  it('emits an event an earlier run of the reply already wrote only once, numbering on after it', () => {
    const written: RunEvent[] = [
      { seq: 0, type: 'message.started', message_id: 'm', thread_id: 't' },
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 2, type: 'text.delta', delta: 'Hi' },
    ];
    const log = new MemoryLog(3);
    const state = stateOver(log, written);

    expect(state.resumed).toBe(true);
    expect(state.content).toBe('Hi');
    state.emitOnce({ type: 'step.started', step: 1 });
    state.emitOnce({ type: 'step.started', step: 2 });

    expect(log.appended).toEqual([{ seq: 3, type: 'step.started', step: 2 }]);
  });

  it('restores the stored lines Redis lost, with the seqs the first run gave them', () => {
    const log = new MemoryLog(1);
    const state = stateOver(log, [{ seq: 0, type: 'message.started', message_id: 'm', thread_id: 't' }]);
    state.restore([
      { type: 'message.started', message_id: 'm', thread_id: 't' },
      { type: 'step.started', step: 1 },
      { type: 'text.delta', delta: 'lost' },
    ]);

    expect(log.appended.map((event) => [event.seq, event.type])).toEqual([
      [1, 'step.started'],
      [2, 'text.delta'],
    ]);
    expect(state.content).toBe('lost');
  });

  it('sends the text a step stored without delta lengths lacks in the log as one more delta', () => {
    const written: RunEvent[] = [
      { seq: 0, type: 'message.started', message_id: 'm', thread_id: 't' },
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 2, type: 'text.delta', delta: 'hello ' },
      { seq: 3, type: 'text.delta', delta: 'there ' },
    ];
    const log = new MemoryLog(4);
    const state = stateOver(log, written);
    state.restore([
      { type: 'message.started', message_id: 'm', thread_id: 't' },
      { type: 'step.started', step: 1 },
      { type: 'text.delta', delta: 'hello there world' },
    ]);

    expect(log.appended).toEqual([{ seq: 4, type: 'text.delta', delta: 'world' }]);
    expect(state.content).toBe('hello there world');
  });

  it('restores journaled lines past what the log holds, with their own seqs', () => {
    const log = new MemoryLog(2);
    const state = stateOver(log, [
      { seq: 0, type: 'message.started', message_id: 'm', thread_id: 't' },
      { seq: 1, type: 'step.started', step: 1 },
    ]);
    state.restoreJournal([
      '{"seq":1,"type":"step.started","step":1}\n{"seq":2,"type":"text.delta","delta":"Hel"}',
      '{"seq":3,"type":"text.delta","delta":"lo"}',
    ]);

    expect(log.appended.map((event) => event.seq)).toEqual([2, 3]);
    expect(state.content).toBe('Hello');
    expect(state.deltaLengths).toEqual([3, 2]);
  });

  it("answers a step's share of what was streamed from where the step before it ended", () => {
    const log = new MemoryLog();
    const state = stateOver(log);
    state.emitText('one ');
    state.emitText('two ');
    state.emitText('three');

    expect(state.streamedAfter(0)).toEqual({ text: 'one two three', deltaLengths: [4, 4, 5] });
    expect(state.streamedAfter(8)).toEqual({ text: 'three', deltaLengths: [5] });
  });

  it('flushes through the log', async () => {
    const log = new MemoryLog();
    await stateOver(log).flush();
    expect(log.flushes).toBe(1);
  });
});
