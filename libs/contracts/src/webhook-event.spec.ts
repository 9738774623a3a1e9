import { endedReplyMessage, MessageRecord } from './responses/message.response';
import { endedReplyEvent } from './webhook-event';

const reply: MessageRecord = {
  id: 'm1',
  threadId: 't1',
  role: 'assistant',
  content: 'done',
  errorCode: null,
  questions: null,
  live: false,
  status: 'cancelled',
  events: [],
  structuredOutput: null,
  agentId: 'a1',
};

describe('endedReplyMessage and endedReplyEvent', () => {
  it("render the reply's final Message once, for its last stream line and its webhook event alike", () => {
    const message = endedReplyMessage(reply, { id: 'a1', name: 'helper', archivedAt: null });
    expect(message).toEqual({
      id: 'm1',
      thread_id: 't1',
      role: 'assistant',
      content: 'done',
      error_code: null,
      questions: null,
      live: false,
      status: 'cancelled',
      events: [],
      structured_output: null,
      files: [],
      agent: { id: 'a1', name: 'helper' },
    });
    const event = endedReplyEvent('cancelled', message);
    expect(event).toMatchObject({
      type: 'message.cancelled',
      payload: { type: 'message.cancelled', data: message },
    });
  });

  it('name the event by how the reply ended', () => {
    expect(endedReplyEvent('success', {}).type).toBe('message.completed');
    expect(endedReplyEvent('error', {}).type).toBe('message.failed');
    expect(endedReplyEvent('cancelled', {}).type).toBe('message.cancelled');
  });
});
