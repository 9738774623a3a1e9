import { RunEvent } from '@app/run-events';
import { AgUiTranslation } from './ag-ui-translation';

const run = { threadId: 'th', runId: 'r1' };
const lines: RunEvent[] = [
  { seq: 0, type: 'message.started', message_id: 'm1', thread_id: 't1' },
  { seq: 1, type: 'step.started', step: 1 },
  { seq: 2, type: 'text.delta', delta: 'Checking. ' },
  { seq: 3, type: 'tool.call', step: 1, call_id: 'k1', name: 'clock', arguments: { tz: 'UTC' } },
  {
    seq: 4,
    type: 'tool.result',
    step: 1,
    call_id: 'k1',
    name: 'clock',
    output: { now: 'noon' },
    is_error: false,
  },
  { seq: 5, type: 'step.started', step: 2 },
  { seq: 6, type: 'text.delta', delta: 'Noon.' },
  { seq: 7, type: 'message.completed', message: { status: 'success', content: 'Checking. Noon.' } },
];

const typesOf = (translation: AgUiTranslation, from: RunEvent[]) =>
  from.flatMap((line) => translation.next(line)).map((event) => event.type);

describe('AgUiTranslation', () => {
  it('opens and closes steps, text messages and tool calls in the order AG-UI verifies them', () => {
    const translation = new AgUiTranslation('m1', run);
    expect([...translation.start().map((event) => event.type), ...typesOf(translation, lines)]).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'STEP_FINISHED',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ]);
  });

  it('starts a resumed run with what the lines before it left open', () => {
    const translation = new AgUiTranslation('m1', run);
    lines.slice(0, 3).forEach((line) => translation.next(line));
    expect(translation.start()).toEqual([
      { type: 'RUN_STARTED', threadId: 'th', runId: 'r1' },
      { type: 'STEP_STARTED', stepName: 'step 1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1-1', role: 'assistant' },
    ]);
  });

  it('ends at a waiting call with an interrupt, keeping the state for the run that resumes it', () => {
    const translation = new AgUiTranslation('m1', run);
    lines.slice(0, 3).forEach((line) => translation.next(line));
    const ending = translation.interrupted([{ step: 1, call_id: 'k1', name: 'clock', arguments: {} }]);
    expect(ending.map((event) => event.type)).toEqual(['TEXT_MESSAGE_END', 'STEP_FINISHED', 'RUN_FINISHED']);
    expect(ending[2]).toMatchObject({
      outcome: {
        type: 'interrupt',
        interrupts: [{ id: 'k1', toolCallId: 'k1', message: 'Allow clock with {}?' }],
      },
    });
    expect(translation.start().map((event) => event.type)).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
    ]);
  });

  it('ends a cancelled reply as cancelled and a failed one with RUN_ERROR', () => {
    const cancelled = new AgUiTranslation('m1', run).next({
      seq: 1,
      type: 'message.completed',
      message: { status: 'cancelled', content: '' },
    });
    expect(cancelled).toEqual([{ type: 'RUN_FINISHED', ...run, outcome: { type: 'cancelled' } }]);
    const failed = new AgUiTranslation('m1', run).next({
      seq: 1,
      type: 'message.completed',
      message: { status: 'error', content: 'boom', error_code: null },
    });
    expect(failed).toEqual([{ type: 'RUN_ERROR', message: 'boom' }]);
  });

  it('shows a fallback and a guardrail as custom events, and a blocked reply as RUN_ERROR with its code', () => {
    const translation = new AgUiTranslation('m1', run);
    const events = [
      { seq: 1, type: 'model.fallback', step: 1, from: 'openai:a', to: 'openai:b', reason: 'HTTP 429' },
      { seq: 2, type: 'guardrail.triggered', stage: 'output', kind: 'blocked_term', action: 'blocked' },
      {
        seq: 3,
        type: 'message.completed',
        message: { status: 'error', content: '', error_code: 'guardrail_blocked' },
      },
    ].flatMap((line) => translation.next(line as RunEvent));
    expect(events).toEqual([
      {
        type: 'CUSTOM',
        name: 'parley.model_fallback',
        value: { step: 1, from: 'openai:a', to: 'openai:b', reason: 'HTTP 429' },
      },
      {
        type: 'CUSTOM',
        name: 'parley.guardrail',
        value: { stage: 'output', kind: 'blocked_term', action: 'blocked' },
      },
      { type: 'RUN_ERROR', message: 'guardrail_blocked', code: 'guardrail_blocked' },
    ]);
  });
});
