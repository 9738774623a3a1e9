import { RunEvent } from './run-event';
import { StoredReply, storedDeltas, storedReplyLines } from './stored-reply';

const message = { id: 'm1', content: 'rendered elsewhere' };

function reply(values: Partial<StoredReply>): StoredReply {
  return {
    id: 'm1',
    threadId: 't1',
    role: 'assistant',
    status: 'success',
    events: [],
    content: '',
    deltaLengths: [],
    agentVersion: null,
    ...values,
  };
}

const deltasOf = (lines: RunEvent[]) =>
  lines.flatMap((line) => (line.type === 'text.delta' ? [line.delta] : []));

describe('storedDeltas', () => {
  it('cuts the content by the stored lengths, whatever the model streamed', () => {
    const stored = reply({ content: 'Hel' + 'lo, wor' + 'ld', deltaLengths: [3, 7, 2] });
    expect(storedDeltas(stored)).toEqual(['Hel', 'lo, wor', 'ld']);
  });

  it('has none for a reply that never streamed', () => {
    expect(storedDeltas(reply({ deltaLengths: null, content: '' }))).toEqual([]);
  });
});

describe('storedReplyLines', () => {
  it('streams a user message as its single message.completed line', () => {
    const user = reply({ role: 'user', events: null, content: 'hi there', deltaLengths: null });
    expect(storedReplyLines(user, message)).toEqual([{ seq: 0, type: 'message.completed', message }]);
  });

  it('closes a reply that never ran with message.started and message.completed', () => {
    expect(
      storedReplyLines(reply({ status: 'cancelled', events: null, deltaLengths: null }), message),
    ).toEqual([
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1', agent_version: null },
      { seq: 1, type: 'message.completed', message },
    ]);
  });

  it('puts the deltas in the seq gaps between events, the rest before message.completed', () => {
    const events = [
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 4, type: 'tool.call', step: 1, call_id: 'c1', name: 'clock', arguments: {} },
      { seq: 5, type: 'tool.result', step: 1, call_id: 'c1', name: 'clock', output: 'now', is_error: false },
      { seq: 6, type: 'step.started', step: 2 },
    ];
    const lines = storedReplyLines(
      reply({ events, content: 'One two three four', deltaLengths: [4, 4, 6, 4] }),
      message,
    );
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

  it('joins its deltas to exactly the content, a vendor model cutting mid-word included', () => {
    const content = 'Partial answer\n\nThe model failed: upstream timeout';
    const deltaLengths = [5, 9, content.length - 14];
    const events = [
      { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
      { seq: 1, type: 'step.started', step: 1 },
    ];
    const lines = storedReplyLines(reply({ status: 'error', events, content, deltaLengths }), message);
    expect(deltasOf(lines)).toEqual(['Parti', 'al answer', '\n\nThe model failed: upstream timeout']);
    expect(deltasOf(lines).join('')).toBe(content);
    expect(lines.map((line) => line.seq)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
