import { WebhookEvent } from '@app/contracts';
import {
  AgentEntity,
  AgentRepository,
  FinishedReply,
  MessageEntity,
  ReplyOutcome,
  RunRepository,
  RunStepEntity,
  ToolApprovalRepository,
} from '@app/persistence';
import { loadSettings } from '@app/config';
import { RunEvent, RunEventWriter } from '@app/run-events';
import { BUDGET_EXHAUSTED_TEXT, ReplyFinisher } from './reply-finisher';
import { RunMetrics } from './run-metrics';
import { RunState } from './run-state';
import { MemoryRunEventLog as MemoryLog } from '../testing/memory-run-event-log';

/**
 * The final rows the finisher writes; `ended` says whether someone else already ended the reply. Each finish
 * notes what the log had published when the final row was written.
 */
class MemoryRuns implements Pick<RunRepository, 'finish'> {
  readonly finished: {
    outcome: ReplyOutcome;
    event: WebhookEvent;
    finalStep: RunStepEntity | null;
    publishedBefore: RunEvent[];
  }[] = [];

  constructor(
    private readonly log: MemoryLog,
    private readonly ended = false,
  ) {}

  finish(
    _id: string,
    outcome: ReplyOutcome,
    event: WebhookEvent,
    finalStep: RunStepEntity | null = null,
  ): Promise<FinishedReply | null> {
    if (this.ended) return Promise.resolve(null);
    this.finished.push({ outcome, event, finalStep, publishedBefore: [...this.log.published] });
    return Promise.resolve({ nextReplyId: 'next', nextOfOrg: null, nextParked: null });
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
    loadSettings({}),
    runs as unknown as RunRepository,
    {} as AgentRepository,
    {} as RunEventWriter,
    new RunMetrics(),
    {} as ToolApprovalRepository,
  );
}

function stateWith(content: string): { state: RunState; log: MemoryLog; runs: MemoryRuns } {
  const log = new MemoryLog();
  const state = new RunState(log.asLog(), []);
  state.emitText(content);
  return { state, log, runs: new MemoryRuns(log) };
}

describe('ReplyFinisher', () => {
  it('stores the final row with the last step before any of its lines is published, then publishes them all', async () => {
    const { state, log, runs } = stateWith('Hello');
    const lastStep = Object.assign(new RunStepEntity(), { messageId: reply.id, step: 1, text: 'Hello' });

    const next = await finisherOver(runs).finish(reply, agent, state, {
      kind: 'success',
      questions: null,
      structuredOutput: { ok: true },
      finalStep: lastStep,
    });

    expect(next).toEqual({ nextReplyId: 'next', nextOfOrg: null, nextParked: null });
    expect(runs.finished[0].outcome).toMatchObject({
      status: 'success',
      content: 'Hello',
      errorCode: null,
      structuredOutput: { ok: true },
      deltaLengths: [5],
    });
    expect(runs.finished[0].event.type).toBe('message.completed');
    // The last step, not stored by the loop, goes with the final row; no client saw its text before.
    expect(runs.finished[0].finalStep).toBe(lastStep);
    expect(runs.finished[0].publishedBefore).toEqual([]);
    expect(log.published.map((event) => event.type)).toEqual(['text.delta', 'message.completed']);
    expect(log.published[1]).toMatchObject({
      type: 'message.completed',
      message: { content: 'Hello', status: 'success' },
    });
    expect(log.flushes).toBe(1);
  });

  it('does not end the reply when another run took over its log, and publishes nothing', async () => {
    const { state, log, runs } = stateWith('Hello');
    log.owned = false;

    await expect(finisherOver(runs).finish(reply, agent, state, { kind: 'cancelled' })).rejects.toThrow(
      'superseded',
    );
    expect(runs.finished).toEqual([]);
    expect(log.published).toEqual([]);
  });

  it('leaves the lines to the next attempt when Redis fails after the final row is stored', async () => {
    const { state, log, runs } = stateWith('Hello');
    log.flushing = () => Promise.reject(new Error('Redis lost'));

    await expect(finisherOver(runs).finish(reply, agent, state, { kind: 'cancelled' })).rejects.toThrow(
      'Redis lost',
    );
    expect(runs.finished).toHaveLength(1);
  });

  it('closes a spent budget with its text and error code', async () => {
    const { state, runs } = stateWith('Partial');

    await finisherOver(runs).finish(reply, agent, state, { kind: 'budget_exhausted' });

    expect(runs.finished[0].outcome).toMatchObject({
      status: 'error',
      errorCode: 'budget_exhausted',
      content: `Partial\n\n${BUDGET_EXHAUSTED_TEXT}`,
    });
  });

  it('does not stream the closing text twice when a resumed run already streamed it', async () => {
    const { state, runs } = stateWith(BUDGET_EXHAUSTED_TEXT);

    await finisherOver(runs).finish(reply, agent, state, { kind: 'budget_exhausted' });

    expect(runs.finished[0].outcome.content).toBe(BUDGET_EXHAUSTED_TEXT);
  });

  it('says why the model failed, and ends a cancelled reply as cancelled', async () => {
    const failedState = stateWith('');
    const failed = failedState.runs;
    await finisherOver(failed).finish(reply, agent, failedState.state, {
      kind: 'model_error',
      reason: 'rate limited',
    });
    expect(failed.finished[0].outcome).toMatchObject({
      status: 'error',
      errorCode: null,
      content: 'The model failed: rate limited',
    });

    const cancelledState = stateWith('So far');
    const cancelled = cancelledState.runs;
    await finisherOver(cancelled).finish(reply, agent, cancelledState.state, { kind: 'cancelled' });
    expect(cancelled.finished[0].outcome).toMatchObject({ status: 'cancelled', content: 'So far' });
  });

  it('writes no last line when someone else ended the reply first', async () => {
    const { state, log } = stateWith('Hello');

    const next = await finisherOver(new MemoryRuns(log, true)).finish(reply, agent, state, {
      kind: 'cancelled',
    });

    expect(next).toBeNull();
    expect(log.appended.some((event) => event.type === 'message.completed')).toBe(false);
    expect(log.published).toEqual([]);
  });
});
