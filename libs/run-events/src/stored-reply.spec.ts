import { RunEvent } from './run-event';
import { splitIntoDeltas, storedReplyLines } from './stored-reply';

const message = { id: 'm1', content: 'ignored here' };

describe('splitIntoDeltas', () => {
  it('cuts one piece a word and joins back to exactly the content', () => {
    const content = '  Hello,  big\nworld!  ';
    const pieces = splitIntoDeltas(content);
    expect(pieces).toEqual(['  Hello,  ', 'big\n', 'world!  ']);
    expect(pieces.join('')).toBe(content);
  });

  it('gives no piece for an empty content and one for whitespace only', () => {
    expect(splitIntoDeltas('')).toEqual([]);
    expect(splitIntoDeltas(' \n')).toEqual([' \n']);
  });
});

describe('storedReplyLines', () => {
  it('streams a user message as its single message.completed line', () => {
    expect(storedReplyLines({ events: null, content: 'hi there' }, message)).toEqual([
      { seq: 0, type: 'message.completed', message },
    ]);
  });

  it('puts the deltas in the seq gaps between events, then the rest before message.completed', () => {
    const events = [
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 4, type: 'tool.call', step: 1, call_id: 'c1', name: 'clock', arguments: {} },
      { seq: 5, type: 'tool.result', step: 1, call_id: 'c1', name: 'clock', output: 'now', is_error: false },
      { seq: 6, type: 'step.started', step: 2 },
    ];
    const lines = storedReplyLines({ events, content: 'One two three four' }, message);
    expect(lines.map((line) => line.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(lines.slice(2, 4)).toEqual([
      { seq: 2, type: 'text.delta', delta: 'One ' },
      { seq: 3, type: 'text.delta', delta: 'two ' },
    ]);
    expect(lines.slice(7, 9)).toEqual([
      { seq: 7, type: 'text.delta', delta: 'three ' },
      { seq: 8, type: 'text.delta', delta: 'four' },
    ]);
    expect(lines[9]).toEqual({ seq: 9, type: 'message.completed', message });
    expect(lines.filter((line) => line.type !== 'text.delta').slice(0, -1)).toEqual(events);
  });

  it('keeps seqs whole and the content exact when the gaps outnumber the words', () => {
    const events = [
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
      { seq: 4, type: 'step.started', step: 2 },
    ];
    const lines = storedReplyLines({ events, content: 'only two' }, message);
    expect(lines.map((line) => line.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    const deltas = lines.filter(
      (line): line is Extract<RunEvent, { type: 'text.delta' }> => line.type === 'text.delta',
    );
    expect(deltas.map((line) => line.delta).join('')).toBe('only two');
  });

  it('orders events by seq whatever order they were stored in', () => {
    const events = [
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
    ];
    const lines = storedReplyLines({ events, content: 'Hi' }, message);
    expect(lines.map((line) => line.type)).toEqual([
      'message.started',
      'step.started',
      'text.delta',
      'message.completed',
    ]);
  });
});
