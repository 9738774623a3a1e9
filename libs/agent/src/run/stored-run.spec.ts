import { RunStepEntity, ToolApproval, ToolCallEntity } from '@app/persistence';
import { idempotencyKey } from '../conversation';
import { storedRunLines } from './stored-run';

/**
 * The lines a reply's stored rows say were published, for a step with a call that waits for a person (`clock`)
 * before one that does not (`company_documents`): the step loop runs the second first, so its result goes out
 * before the approval request.
 */
const reply = { id: 'reply-1', threadId: 'thread-1', agentVersion: 2 };

const step = Object.assign(new RunStepEntity(), {
  messageId: reply.id,
  step: 1,
  text: '',
  toolCalls: [
    { callId: 'c1', name: 'clock', arguments: '{}' },
    { callId: 'c2', name: 'company_documents', arguments: '{"query":"pricing"}' },
  ],
  questions: null,
  deltaLengths: [],
  streamedText: null,
});

const result = (callId: string, name: string, output: unknown): ToolCallEntity =>
  Object.assign(new ToolCallEntity(), {
    idempotencyKey: idempotencyKey(reply.id, 1, callId),
    messageId: reply.id,
    step: 1,
    callId,
    name,
    arguments: {},
    output,
    isError: false,
  });

const approval = (decision: ToolApproval['decision']): ToolApproval => ({
  messageId: reply.id,
  step: 1,
  callId: 'c1',
  name: 'clock',
  arguments: {},
  decision,
  reason: null,
  expiresAt: new Date(Date.now() + 60_000),
});

const shape = (lines: ReturnType<typeof storedRunLines>) =>
  lines.map((line) => ('call_id' in line ? `${line.type} ${line.call_id}` : line.type));

const documents = result('c2', 'company_documents', { passages: [] });

/** The lines up to the request, once the call that needs no person has its result. */
const UNTIL_THE_REQUEST = [
  'message.started',
  'step.started',
  'tool.call c1',
  'tool.call c2',
  'tool.result c2',
  'approval.requested c1',
];

describe('storedRunLines of a step with a call that waits for a person', () => {
  it('has the result needing no person before the request, and nothing after it while it waits', () => {
    expect(shape(storedRunLines(reply, [step], [documents], [approval(null)]))).toEqual(UNTIL_THE_REQUEST);
  });

  it('has the decision and the waiting call’s result once decided', () => {
    const clock = result('c1', 'clock', { now: 'noon' });
    expect(shape(storedRunLines(reply, [step], [documents, clock], [approval('approve')]))).toEqual([
      ...UNTIL_THE_REQUEST,
      'approval.decided c1',
      'tool.result c1',
    ]);
  });

  it('keeps a result stored before the approvals were asked, though a call before it has none', () => {
    // The run stopped between the result of the call that needs no person and the approval rows.
    expect(shape(storedRunLines(reply, [step], [documents], []))).toEqual([
      'message.started',
      'step.started',
      'tool.call c1',
      'tool.call c2',
      'tool.result c2',
    ]);
  });
});

describe('storedRunLines of a reply that ran a version of its agent', () => {
  it('names that version on message.started, as the live run published it', () => {
    expect(storedRunLines(reply, [], [], [])[0]).toEqual({
      type: 'message.started',
      message_id: 'reply-1',
      thread_id: 'thread-1',
      agent_version: 2,
    });
  });
});
