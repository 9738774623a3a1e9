import { RunEvent } from '@app/run-events';
import { ResponseHeader, ResponseStreamEvent, ResponseTranslation } from './response-translation';

const REPLY = '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11';
const header: ResponseHeader = {
  id: `resp_${REPLY}`,
  created_at: 1764115200,
  model: 'agent-1',
  previous_response_id: null,
  user: 'alice',
  metadata: { ticket: 'T-1' },
};

/** A reply that calls `clock` in step 1, then answers "It is noon." in step 2. */
const toolThenText: RunEvent[] = [
  { seq: 0, type: 'message.started', message_id: REPLY, thread_id: 't' },
  { seq: 1, type: 'step.started', step: 1 },
  { seq: 2, type: 'tool.call', step: 1, call_id: 'c1', name: 'clock', arguments: { tz: 'UTC' } },
  { seq: 3, type: 'tool.result', step: 1, call_id: 'c1', name: 'clock', output: '12:00', is_error: false },
  { seq: 4, type: 'step.started', step: 2 },
  { seq: 5, type: 'text.delta', delta: 'It ' },
  { seq: 6, type: 'text.delta', delta: 'is noon.' },
  { seq: 7, type: 'message.completed', message: { status: 'success', content: 'It is noon.' } },
];

function translate(lines: RunEvent[], outputTokens = 0, inputTokens = 0): ResponseStreamEvent[] {
  const translation = new ResponseTranslation(header);
  return lines.flatMap((line) => translation.next(line, { inputTokens, outputTokens }));
}

describe('ResponseTranslation', () => {
  it('numbers the events 0, 1, 2, … without gaps, in the order of §18', () => {
    const events = translate(toolThenText, 7);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('makes a tool call a completed function_call item with its arguments as a JSON string', () => {
    const done = translate(toolThenText).find((event) => event.type === 'response.completed')!;
    const response = done.response as { output: Record<string, unknown>[]; output_text: string };
    expect(response.output[0]).toEqual({
      type: 'function_call',
      id: 'fc_c1',
      call_id: 'c1',
      name: 'clock',
      arguments: '{"tz":"UTC"}',
      status: 'completed',
    });
    expect(response.output[1]).toMatchObject({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'It is noon.', annotations: [] }],
    });
    expect(response.output_text).toBe('It is noon.');
  });

  it('gives every delta its item, output and content index', () => {
    const deltas = translate(toolThenText).filter((event) => event.type === 'response.output_text.delta');
    expect(deltas.map((delta) => delta.delta).join('')).toBe('It is noon.');
    for (const delta of deltas) {
      expect(delta).toMatchObject({ item_id: `msg_${REPLY}_0`, output_index: 1, content_index: 0 });
    }
  });

  it('makes the same events from the same lines, so a resumed stream is the first one minus its head', () => {
    expect(translate(toolThenText, 3)).toEqual(translate(toolThenText, 3));
  });

  it('reports usage and status on the last event', () => {
    const [last] = translate(toolThenText, 7, 12).slice(-1);
    expect(last.response).toMatchObject({
      status: 'completed',
      usage: { input_tokens: 12, output_tokens: 7, total_tokens: 19 },
      error: null,
    });
  });

  it('ends a reply that failed with response.failed carrying why', () => {
    const [last] = translate([
      toolThenText[0],
      {
        seq: 1,
        type: 'message.completed',
        message: { status: 'error', content: 'model failed', error_code: null },
      },
    ]).slice(-1);
    expect(last.type).toBe('response.failed');
    expect(last.response).toMatchObject({
      status: 'failed',
      error: { code: 'server_error', message: 'model failed' },
    });
  });

  it('takes back the text of a reply a guardrail stopped: the items end with the stored content (§24)', () => {
    const blocked = 'A guardrail blocked this reply.';
    const events = translate([
      toolThenText[0],
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 2, type: 'text.delta', delta: 'The password is ' },
      { seq: 3, type: 'guardrail.triggered', stage: 'output', kind: 'blocked_term', action: 'blocked' },
      { seq: 4, type: 'text.delta', delta: blocked },
      {
        seq: 5,
        type: 'message.completed',
        message: { status: 'error', content: blocked, error_code: 'guardrail_blocked' },
      },
    ]);
    expect(events.find((event) => event.type === 'response.output_text.done')).toMatchObject({
      text: blocked,
    });
    expect(events.find((event) => event.type === 'parley:guardrail_triggered')).toMatchObject({
      stage: 'output',
      kind: 'blocked_term',
      action: 'blocked',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'response.failed',
      response: { output_text: blocked, error: { code: 'guardrail_blocked', message: blocked } },
    });
  });

  it('numbers the events of a replay whose withdrawn deltas are empty as the live stream did (§24)', () => {
    const lines = (first: string): RunEvent[] => [
      toolThenText[0],
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 2, type: 'text.delta', delta: first },
      { seq: 3, type: 'guardrail.triggered', stage: 'output', kind: 'blocked_term', action: 'blocked' },
      { seq: 4, type: 'text.delta', delta: 'Blocked.' },
      { seq: 5, type: 'message.completed', message: { status: 'error', content: 'Blocked.' } },
    ];
    const live = translate(lines('The password is '));
    const replayed = translate(lines(''));
    expect(replayed.map((event) => [event.type, event.sequence_number])).toEqual(
      live.map((event) => [event.type, event.sequence_number]),
    );
    expect(replayed.at(-1)).toEqual(live.at(-1));
  });

  it('shows a fallback model as an event of its own, between the lines it came between', () => {
    const events = translate([
      toolThenText[0],
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 2, type: 'model.fallback', step: 1, from: 'openai:a', to: 'openai:b', reason: 'rate limited' },
      { seq: 3, type: 'text.delta', delta: 'Hi' },
      { seq: 4, type: 'message.completed', message: { status: 'success', content: 'Hi' } },
    ]);
    const index = events.findIndex((event) => event.type === 'parley:model_fallback');
    expect(events[index]).toEqual({
      type: 'parley:model_fallback',
      sequence_number: index,
      step: 1,
      from: 'openai:a',
      to: 'openai:b',
      reason: 'rate limited',
    });
    expect(events[index + 1].type).toBe('response.output_item.added');
  });

  it('ends a cancelled reply with response.failed, status cancelled and error code cancelled, closing what was open', () => {
    const events = translate([
      ...toolThenText.slice(0, 3),
      { seq: 3, type: 'message.completed', message: { status: 'cancelled', content: '' } },
    ]);
    const [last] = events.slice(-1);
    expect(last.type).toBe('response.failed');
    expect(last.response).toMatchObject({ status: 'cancelled', error: { code: 'cancelled' } });
    expect((last.response as { output: { status: string }[] }).output[0].status).toBe('incomplete');
    expect(events.filter((event) => event.type === 'response.output_item.done')).toHaveLength(1);
  });

  it('answers the Response as it stands while the reply runs', () => {
    const translation = new ResponseTranslation(header);
    for (const line of toolThenText.slice(0, 6)) translation.next(line);
    expect(translation.response()).toMatchObject({
      object: 'response',
      metadata: { ticket: 'T-1' },
      status: 'in_progress',
      output_text: 'It ',
      usage: null,
    });
  });
});
