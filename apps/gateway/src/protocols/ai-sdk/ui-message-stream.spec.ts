import { RunEvent } from '@app/run-events';
import { sseFrames, toUiMessageChunks, UI_STREAM_START, UiStreamState } from './ui-message-stream';

const REPLY_ID = '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11';

/** Every chunk the lines become, in order, as one stream would translate them. */
function translate(lines: RunEvent[]): unknown[] {
  let state: UiStreamState = UI_STREAM_START;
  return lines.flatMap((line) => {
    const translated = toUiMessageChunks(state, line);
    state = translated.state;
    return translated.chunks;
  });
}

const completed = (seq: number, message: Record<string, unknown>): RunEvent => ({
  seq,
  type: 'message.completed',
  message,
});

describe('toUiMessageChunks', () => {
  it('maps a tool round and a text step to steps, tool parts and one text part per step', () => {
    const chunks = translate([
      { seq: 0, type: 'message.started', message_id: REPLY_ID, thread_id: 't' },
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 2, type: 'tool.call', step: 1, call_id: 'c1', name: 'clock', arguments: {} },
      {
        seq: 3,
        type: 'tool.result',
        step: 1,
        call_id: 'c1',
        name: 'clock',
        output: '12:00',
        is_error: false,
      },
      { seq: 4, type: 'step.started', step: 2 },
      { seq: 5, type: 'text.delta', delta: 'It is ' },
      { seq: 6, type: 'text.delta', delta: 'noon' },
      completed(7, { status: 'success', content: 'It is noon' }),
    ]);
    expect(chunks).toEqual([
      { type: 'start', messageId: REPLY_ID },
      { type: 'start-step' },
      { type: 'tool-input-available', toolCallId: 'c1', toolName: 'clock', input: {}, dynamic: true },
      { type: 'tool-output-available', toolCallId: 'c1', output: '12:00', dynamic: true },
      { type: 'finish-step' },
      { type: 'start-step' },
      { type: 'text-start', id: 'text-2' },
      { type: 'text-delta', id: 'text-2', delta: 'It is ' },
      { type: 'text-delta', id: 'text-2', delta: 'noon' },
      { type: 'text-end', id: 'text-2' },
      { type: 'finish-step' },
      { type: 'finish' },
    ]);
  });

  it('maps a failed tool to tool-output-error with its output as text', () => {
    const chunks = translate([
      { seq: 0, type: 'step.started', step: 1 },
      {
        seq: 1,
        type: 'tool.result',
        step: 1,
        call_id: 'c',
        name: 'x',
        output: { error: 'no' },
        is_error: true,
      },
    ]);
    expect(chunks[1]).toEqual({
      type: 'tool-output-error',
      toolCallId: 'c',
      errorText: '{"error":"no"}',
      dynamic: true,
    });
  });

  it('maps questions to a data-parley-questions part', () => {
    const questions = [{ prompt: 'Which?', options: ['A', 'B'] }];
    expect(translate([{ seq: 3, type: 'questions', questions }])).toEqual([
      { type: 'data-parley-questions', data: { questions } },
    ]);
  });

  it('maps a model fallback and a guardrail trigger to data-parley parts (CONTRACTS §24)', () => {
    const fallback = { step: 1, from: 'openai:a', to: 'anthropic:b', reason: 'rate limited' };
    const guardrail = { stage: 'input', kind: 'email', action: 'redacted' } as const;
    expect(
      translate([
        { seq: 3, type: 'model.fallback', ...fallback },
        { seq: 4, type: 'guardrail.triggered', ...guardrail },
      ]),
    ).toEqual([
      { type: 'data-parley-fallback', data: fallback },
      { type: 'data-parley-guardrail', data: guardrail },
    ]);
  });

  it('maps a call waiting for a person to tool-approval-request, and says nothing of the decision', () => {
    const call = { step: 1, call_id: 'c', name: 'web', arguments: { url: 'https://example.com' } };
    expect(
      translate([
        { seq: 4, type: 'approval.requested', ...call },
        { seq: 5, type: 'approval.decided', step: 1, call_id: 'c', decision: 'approve' },
      ]),
    ).toEqual([{ type: 'tool-approval-request', approvalId: 'c', toolCallId: 'c' }]);
  });

  it("ends a denied call as the AI SDK's tool-output-denied, an approved one with its output", () => {
    const call = (call_id: string) => ({ step: 1, call_id, name: 'web', arguments: {} });
    const chunks = translate([
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 2, type: 'tool.call', ...call('yes') },
      { seq: 3, type: 'tool.call', ...call('no') },
      { seq: 4, type: 'approval.requested', ...call('yes') },
      { seq: 5, type: 'approval.requested', ...call('no') },
      { seq: 6, type: 'approval.decided', step: 1, call_id: 'yes', decision: 'approve' },
      { seq: 7, type: 'approval.decided', step: 1, call_id: 'no', decision: 'deny' },
      { seq: 8, type: 'step.started', step: 1 },
      { seq: 9, type: 'tool.result', ...call('yes'), output: 'page', is_error: false },
      {
        seq: 10,
        type: 'tool.result',
        ...call('no'),
        output: { denied: true, reason: null },
        is_error: false,
      },
    ]);
    expect(chunks.slice(-2)).toEqual([
      { type: 'tool-output-available', toolCallId: 'yes', output: 'page', dynamic: true },
      { type: 'tool-output-denied', toolCallId: 'no' },
    ]);
  });

  it('ends a failed reply with error (saying why) then finish, and a cancelled one with abort', () => {
    const step: RunEvent[] = [
      { seq: 0, type: 'step.started', step: 1 },
      { seq: 1, type: 'text.delta', delta: 'x' },
    ];
    expect(
      translate([...step, completed(2, { status: 'error', content: 'Model failed' })]).slice(-3),
    ).toEqual([{ type: 'finish-step' }, { type: 'error', errorText: 'Model failed' }, { type: 'finish' }]);
    expect(
      translate([...step, completed(2, { status: 'error', content: '', error_code: 'budget_exhausted' })]),
    ).toContainEqual({ type: 'error', errorText: 'budget_exhausted' });
    expect(translate([...step, completed(2, { status: 'cancelled' })]).slice(-2)).toEqual([
      { type: 'finish-step' },
      { type: 'abort' },
    ]);
  });

  it('opens a step for text that comes before any step.started', () => {
    expect(translate([{ seq: 0, type: 'text.delta', delta: 'hi' }])).toEqual([
      { type: 'start-step' },
      { type: 'text-start', id: 'text-0' },
      { type: 'text-delta', id: 'text-0', delta: 'hi' },
    ]);
  });

  it('is pure: the same lines give the same chunks however often they are translated', () => {
    const lines: RunEvent[] = [
      { seq: 0, type: 'message.started', message_id: REPLY_ID, thread_id: 't' },
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 2, type: 'text.delta', delta: 'a' },
      completed(3, { status: 'success' }),
    ];
    expect(translate(lines)).toEqual(translate(lines));
  });
});

describe('sseFrames', () => {
  it('writes one frame per chunk with the id of its line', () => {
    expect(sseFrames(7, [{ type: 'finish-step' }, { type: 'finish' }])).toEqual([
      'id: 7\ndata: {"type":"finish-step"}\n',
      'id: 7\ndata: {"type":"finish"}\n',
    ]);
  });
});
