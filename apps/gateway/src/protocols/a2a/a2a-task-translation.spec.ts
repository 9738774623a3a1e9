import { RunEvent } from '@app/run-events';
import { A2aTaskTranslation, a2aStateOf } from './a2a-task-translation';

const ids = { taskId: 't1', contextId: 'c1' };

const lines: RunEvent[] = [
  { seq: 0, type: 'message.started', message_id: 't1', thread_id: 'c1' },
  { seq: 1, type: 'step.started', step: 1 },
  { seq: 2, type: 'tool.call', step: 1, call_id: 'k1', name: 'clock', arguments: {} },
  { seq: 3, type: 'tool.result', step: 1, call_id: 'k1', name: 'clock', output: 'noon', is_error: false },
  { seq: 4, type: 'step.started', step: 2 },
  { seq: 5, type: 'text.delta', delta: 'It is ' },
  { seq: 6, type: 'text.delta', delta: 'noon' },
  { seq: 7, type: 'message.completed', message: { status: 'success', content: 'It is noon', questions: [] } },
];

describe('A2aTaskTranslation', () => {
  it('streams the task, tool activity as data parts, the text as chunks of one artifact, then completed', () => {
    const translation = new A2aTaskTranslation(ids);
    const updates = lines.flatMap((line) => translation.next(line));
    expect(updates[0]).toEqual({
      task: {
        id: 't1',
        contextId: 'c1',
        status: { state: 'TASK_STATE_SUBMITTED' },
        artifacts: [],
        history: [],
      },
    });
    expect(updates[1]).toEqual({
      statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } },
    });
    const chunks = updates.flatMap((update) => ('artifactUpdate' in update ? [update.artifactUpdate] : []));
    expect(chunks.map((chunk) => [chunk.artifact.parts, chunk.append])).toEqual([
      [[{ text: 'It is ' }], false],
      [[{ text: 'noon' }], true],
    ]);
    expect(updates[updates.length - 1]).toEqual({
      statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } },
    });
    const task = translation.task();
    expect(task.artifacts).toEqual([{ artifactId: 'reply', name: 'reply', parts: [{ text: 'It is noon' }] }]);
    expect(task.history.map((message) => message.parts)).toEqual([
      [{ data: { tool_call: { step: 1, call_id: 'k1', name: 'clock', arguments: {} } } }],
      [{ data: { tool_result: { step: 1, call_id: 'k1', name: 'clock', output: 'noon', is_error: false } } }],
    ]);
  });

  it('gives the same updates when the lines are read again (a resubscription)', () => {
    const once = new A2aTaskTranslation(ids);
    const again = new A2aTaskTranslation(ids);
    expect(lines.flatMap((line) => again.next(line))).toEqual(lines.flatMap((line) => once.next(line)));
  });

  it('asks for input with the approval question, and fails a failed reply saying why', () => {
    const waiting = new A2aTaskTranslation(ids);
    const [update] = waiting.waiting([{ step: 1, call_id: 'k1', name: 'clock', arguments: { tz: 'UTC' } }]);
    expect(update).toMatchObject({
      statusUpdate: {
        status: {
          state: 'TASK_STATE_INPUT_REQUIRED',
          message: { role: 'ROLE_AGENT', parts: [{ text: 'Allow clock with {"tz":"UTC"}?' }, { data: {} }] },
        },
      },
    });
    const failed = new A2aTaskTranslation(ids);
    const end = failed.next({
      seq: 1,
      type: 'message.completed',
      message: { status: 'error', content: 'boom' },
    });
    expect(end).toEqual([
      {
        statusUpdate: {
          taskId: 't1',
          contextId: 'c1',
          status: {
            state: 'TASK_STATE_FAILED',
            message: {
              messageId: 't1:1',
              contextId: 'c1',
              taskId: 't1',
              role: 'ROLE_AGENT',
              parts: [{ text: 'boom' }],
            },
          },
        },
      },
    ]);
    expect(failed.task().artifacts).toEqual([]);
  });

  it('shows a fallback and a guardrail as data parts of working updates', () => {
    const translation = new A2aTaskTranslation(ids);
    const parts = [
      { seq: 1, type: 'model.fallback', step: 1, from: 'openai:a', to: 'openai:b', reason: 'HTTP 429' },
      { seq: 2, type: 'guardrail.triggered', stage: 'input', kind: 'email', action: 'redacted' },
    ]
      .flatMap((line) => translation.next(line as RunEvent))
      .map((update) => ('statusUpdate' in update ? update.statusUpdate.status.message?.parts : undefined));
    expect(parts).toEqual([
      [{ data: { model_fallback: { step: 1, from: 'openai:a', to: 'openai:b', reason: 'HTTP 429' } } }],
      [{ data: { guardrail: { stage: 'input', kind: 'email', action: 'redacted' } } }],
    ]);
  });

  it('maps every reply status to its task state', () => {
    expect(
      ['pending', 'running', 'requires_action', 'success', 'error', 'cancelled'].map((status) =>
        a2aStateOf(status),
      ),
    ).toEqual([
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
      'TASK_STATE_CANCELED',
    ]);
    expect(a2aStateOf('success', true)).toBe('TASK_STATE_INPUT_REQUIRED');
  });
});
