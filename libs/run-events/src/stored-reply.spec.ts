import { RunEvent } from './run-event';
import { splitIntoDeltas, StoredReply, storedReplyLines } from './stored-reply';

const message = { id: 'm1', content: 'rendered elsewhere' };

function reply(values: Partial<StoredReply>): StoredReply {
  return {
    id: 'm1',
    threadId: 't1',
    role: 'assistant',
    status: 'success',
    events: [],
    content: '',
    ...values,
  };
}

const deltasOf = (lines: RunEvent[]) =>
  lines.flatMap((line) => (line.type === 'text.delta' ? [line.delta] : []));

describe('splitIntoDeltas', () => {
  it('cuts one piece a word, as the builtin model does, and joins back to exactly the text', () => {
    const text = '  Hello,  big\nworld!  ';
    expect(splitIntoDeltas(text)).toEqual(['  Hello,  ', 'big\n', 'world!  ']);
    expect(splitIntoDeltas(text).join('')).toBe(text);
  });

  it('gives no piece for an empty text and one for whitespace only', () => {
    expect(splitIntoDeltas('')).toEqual([]);
    expect(splitIntoDeltas(' \n')).toEqual([' \n']);
  });
});

describe('storedReplyLines', () => {
  it('streams a user message as its single message.completed line', () => {
    const user = reply({ role: 'user', events: null, content: 'hi there' });
    expect(storedReplyLines(user, [], message)).toEqual([{ seq: 0, type: 'message.completed', message }]);
  });

  it('closes a reply that never ran with message.started and message.completed', () => {
    expect(storedReplyLines(reply({ status: 'cancelled', events: null }), [], message)).toEqual([
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
      { seq: 1, type: 'message.completed', message },
    ]);
  });

  it("puts each step's words in the seq gaps between events, the rest before message.completed", () => {
    const events = [
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 4, type: 'tool.call', step: 1, call_id: 'c1', name: 'clock', arguments: {} },
      { seq: 5, type: 'tool.result', step: 1, call_id: 'c1', name: 'clock', output: 'now', is_error: false },
      { seq: 6, type: 'step.started', step: 2 },
    ];
    const content = 'One two three four';
    const steps = [
      { text: 'One two ', contentLength: 8 },
      { text: 'three four', contentLength: content.length },
    ];
    const lines = storedReplyLines(reply({ events, content }), steps, message);
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

  it('streams the closing text of a failed reply as one delta, as the runtime writes it', () => {
    const events = [
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
      { seq: 1, type: 'step.started', step: 1 },
    ];
    const content = 'Partial answer\n\nThe model failed: upstream timeout';
    const steps = [{ text: 'Partial answer', contentLength: 14 }];
    const lines = storedReplyLines(reply({ status: 'error', events, content }), steps, message);
    expect(deltasOf(lines)).toEqual(['Partial ', 'answer', '\n\nThe model failed: upstream timeout']);
    const failed = storedReplyLines(
      reply({ status: 'error', events, content: 'The model failed: x y' }),
      [],
      message,
    );
    expect(deltasOf(failed)).toEqual(['The model failed: x y']);
  });

  it('cuts the words of a step a cancellation interrupted', () => {
    const events = [{ seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' }];
    const lines = storedReplyLines(reply({ status: 'cancelled', events, content: 'cut short' }), [], message);
    expect(deltasOf(lines)).toEqual(['cut ', 'short']);
  });

  it('keeps seqs whole and the content exact when the gaps outnumber the deltas', () => {
    const events = [
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
      { seq: 4, type: 'step.started', step: 2 },
    ];
    const lines = storedReplyLines(reply({ events, content: 'only two' }), [], message);
    expect(lines.map((line) => line.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(deltasOf(lines).join('')).toBe('only two');
  });

  it('falls back to the words of the content when the steps do not match it', () => {
    const steps = [{ text: 'something else entirely', contentLength: 99 }];
    const lines = storedReplyLines(reply({ content: 'a b' }), steps, message);
    expect(deltasOf(lines)).toEqual(['a ', 'b']);
  });

  it('orders events by seq whatever order they were stored in', () => {
    const events = [
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
    ];
    const lines = storedReplyLines(reply({ events, content: 'Hi' }), [], message);
    expect(lines.map((line) => line.type)).toEqual([
      'message.started',
      'step.started',
      'text.delta',
      'message.completed',
    ]);
  });
});
