import { WebhookEvent } from '@app/contracts';
import {
  AgentEntity,
  AgentRepository,
  FinishedReply,
  MessageEntity,
  ReplyOutcome,
  RunRepository,
  RunStepEntity,
} from '@app/persistence';
import { RunEvent, RunEventLog, RunEventWriter, UnnumberedRunEvent } from '@app/run-events';
import { BUDGET_EXHAUSTED_TEXT, ReplyFinisher } from './reply-finisher';
import { RunMetrics } from './run-metrics';
import { RunState } from './run-state';

/** The final rows the finisher writes; `ended` says whether someone else already ended the reply. */
class MemoryRuns implements Pick<RunRepository, 'finish' | 'saveStep'> {
  readonly checkpoints: RunStepEntity[] = [];

  readonly finished: { outcome: ReplyOutcome; event: WebhookEvent; finalStep: RunStepEntity | null }[] = [];

  constructor(private readonly ended = false) {}

  finish(
    _id: string,
    outcome: ReplyOutcome,
    event: WebhookEvent,
    finalStep: RunStepEntity | null = null,
  ): Promise<FinishedReply | null> {
    if (this.ended) return Promise.resolve(null);
    this.finished.push({ outcome, event, finalStep });
    return Promise.resolve({ nextReplyId: 'next', nextOfOrg: null });
  }

  saveStep(
    step: RunStepEntity,
  ): Promise<{ step: RunStepEntity; gate: { archived: false; budgetSpent: false } }> {
    this.checkpoints.push(step);
    return Promise.resolve({ step, gate: { archived: false, budgetSpent: false } });
  }
}

class MemoryLog implements Pick<RunEventLog, 'nextSeq' | 'append' | 'flush'> {
  readonly appended: RunEvent[] = [];

  get nextSeq(): number {
    return this.appended.length;
  }

  append(event: UnnumberedRunEvent): RunEvent {
    const numbered = { seq: this.appended.length, ...event } as RunEvent;
    this.appended.push(numbered);
    return numbered;
  }

  /** How the next flush goes: at once, after a delay (Redis slow), or failing (Redis lost). */
  flushing: () => Promise<void> = () => Promise.resolve();

  flush(): Promise<void> {
    return this.flushing();
  }
}

const reply = Object.assign(new MessageEntity(), {
  id: 'r',
  threadId: 't',
  role: 'assistant',
  agentId: 'a',
  content: '',
  live: true,
  status: 'running',
});
const agent = Object.assign(new AgentEntity(), { id: 'a', name: 'helper' });

function finisherOver(runs: MemoryRuns): ReplyFinisher {
  return new ReplyFinisher(
    runs as unknown as RunRepository,
    {} as AgentRepository,
    {} as RunEventWriter,
    new RunMetrics(),
  );
}

function stateWith(content: string): { state: RunState; log: MemoryLog } {
  const log = new MemoryLog();
  const state = new RunState(log as unknown as RunEventLog, []);
  state.emitText(content);
  return { state, log };
}

describe('ReplyFinisher', () => {
  it('writes a success with everything streamed, then the message.completed line carrying that row', async () => {
    const runs = new MemoryRuns();
    const { state, log } = stateWith('Hello');
    const lastStep = Object.assign(new RunStepEntity(), { messageId: reply.id, step: 1, text: 'Hello' });

    const next = await finisherOver(runs).finish(reply, agent, state, {
      kind: 'success',
      questions: null,
      structuredOutput: { ok: true },
      finalStep: lastStep,
    });

    expect(next).toEqual({ nextReplyId: 'next', nextOfOrg: null });
    expect(runs.finished[0].outcome).toMatchObject({
      status: 'success',
      content: 'Hello',
      errorCode: null,
      structuredOutput: { ok: true },
      deltaLengths: [5],
    });
    expect(runs.finished[0].event.type).toBe('message.completed');
    // The last step, not stored by the loop, goes with the final row.
    expect(runs.finished[0].finalStep).toBe(lastStep);
    const last = log.appended[log.appended.length - 1];
    expect(last).toMatchObject({
      type: 'message.completed',
      message: { content: 'Hello', status: 'success' },
    });
  });

  it('stores the last step on its own when its lines are slow to reach Redis, or fail to', async () => {
    const lastStep = Object.assign(new RunStepEntity(), { messageId: reply.id, step: 1, text: 'Hello' });
    const success = {
      kind: 'success' as const,
      questions: null,
      structuredOutput: null,
      finalStep: lastStep,
    };

    const slow = new MemoryRuns();
    const slowState = stateWith('Hello');
    slowState.log.flushing = () => new Promise((resolve) => setTimeout(resolve, 300));
    expect(await finisherOver(slow).finish(reply, agent, slowState.state, success)).not.toBeNull();
    expect(slow.checkpoints).toEqual([lastStep]);
    expect(slow.finished[0].finalStep).toBeNull();

    const lost = new MemoryRuns();
    const lostState = stateWith('Hello');
    lostState.log.flushing = () => Promise.reject(new Error('Redis lost'));
    await expect(finisherOver(lost).finish(reply, agent, lostState.state, success)).rejects.toThrow(
      'Redis lost',
    );
    expect(lost.checkpoints).toEqual([lastStep]);
    expect(lost.finished).toEqual([]);
  });

  it('closes a spent budget with its text and error code', async () => {
    const runs = new MemoryRuns();
    const { state } = stateWith('Partial');

    await finisherOver(runs).finish(reply, agent, state, { kind: 'budget_exhausted' });

    expect(runs.finished[0].outcome).toMatchObject({
      status: 'error',
      errorCode: 'budget_exhausted',
      content: `Partial\n\n${BUDGET_EXHAUSTED_TEXT}`,
    });
  });

  it('does not stream the closing text twice when a resumed run already streamed it', async () => {
    const runs = new MemoryRuns();
    const { state } = stateWith(BUDGET_EXHAUSTED_TEXT);

    await finisherOver(runs).finish(reply, agent, state, { kind: 'budget_exhausted' });

    expect(runs.finished[0].outcome.content).toBe(BUDGET_EXHAUSTED_TEXT);
  });

  it('says why the model failed, and ends a cancelled reply as cancelled', async () => {
    const failed = new MemoryRuns();
    await finisherOver(failed).finish(reply, agent, stateWith('').state, {
      kind: 'model_error',
      reason: 'rate limited',
    });
    expect(failed.finished[0].outcome).toMatchObject({
      status: 'error',
      errorCode: null,
      content: 'The model failed: rate limited',
    });

    const cancelled = new MemoryRuns();
    await finisherOver(cancelled).finish(reply, agent, stateWith('So far').state, { kind: 'cancelled' });
    expect(cancelled.finished[0].outcome).toMatchObject({ status: 'cancelled', content: 'So far' });
  });

  it('writes no last line when someone else ended the reply first', async () => {
    const { state, log } = stateWith('Hello');

    const next = await finisherOver(new MemoryRuns(true)).finish(reply, agent, state, { kind: 'cancelled' });

    expect(next).toBeNull();
    expect(log.appended.some((event) => event.type === 'message.completed')).toBe(false);
  });
});
