import { Settings } from '@app/config';
import {
  AgentEntity,
  GateQuery,
  GuardrailSettings,
  MessageEntity,
  ParkedReply,
  RunGate,
  RunRepository,
  RunStepEntity,
  ThreadEntity,
  ToolCallEntity,
  ToolApprovalRepository,
} from '@app/persistence';
import { ModelProvider } from '../models/model-provider';
import { RunMetrics } from './run-metrics';
import { RunEvent } from '@app/run-events';
import { RunState } from './run-state';
import { MemoryRunEventLog as MemoryLog } from '../testing/memory-run-event-log';
import { AgentTool, ToolError } from '../tools/tool';
import { ToolRegistry } from '../tools/tool-registry';
import { ReplyRun } from './run.types';
import { Guardrails } from '../guardrails/guardrails';
import { StepLoop } from './step-loop';
import { RunScheduler } from './run-scheduler';
import { ReplyParkedError, UserBudgetTurn } from './user-budget-turn';
import { ApprovalGate } from './approval-gate';

const OPEN: RunGate = {
  archived: false,
  agentBudget: null,
  organizationBudget: null,
  userBudget: null,
};

/** The checkpoints the loop writes, kept in memory; `gates` answers each checkpoint in turn (then OPEN). */
class MemoryRuns implements Pick<
  RunRepository,
  'saveStep' | 'saveToolResult' | 'gate' | 'takeUserBudgetTurn' | 'parkForUserBudgetTurn'
> {
  readonly steps: RunStepEntity[] = [];
  readonly results: ToolCallEntity[] = [];
  readonly gateQueries: GateQuery[] = [];
  /** What the log had published when each step was stored; set `log` to record it. */
  readonly publishedAtStep: string[][] = [];
  log: MemoryLog | null = null;

  /** How many times the loop read the gate alone (with its end user's spending turn). */
  gateReads = 0;
  /** How many times the loop asked for its end user's spending turn. */
  turnTries = 0;
  /** The content and events so far of each park the loop asked for (the turn was held). */
  readonly parks: { content: string; events: Record<string, unknown>[] }[] = [];
  /** The parked reply each stored step handed the turn to, in turn (then none). */
  readonly handedTo: (ParkedReply | null)[] = [];

  /**
   * `turns` answers each try for the spending turn in turn (then taken); `parks`, each park asked for after a
   * refused try (then parked).
   */
  constructor(
    private readonly gates: RunGate[] = [],
    private readonly turns: boolean[] = [],
    private readonly parkAnswers: ('taken' | 'parked' | 'ended')[] = [],
  ) {}

  takeUserBudgetTurn(): Promise<boolean> {
    this.turnTries++;
    return Promise.resolve(this.turns.shift() ?? true);
  }

  parkForUserBudgetTurn(
    _messageId: string,
    _threadId: string,
    streamed: { content: string; events: Record<string, unknown>[] },
  ): Promise<'taken' | 'parked' | 'ended'> {
    this.parks.push({ content: streamed.content, events: [...streamed.events] });
    return Promise.resolve(this.parkAnswers.shift() ?? 'parked');
  }

  gate(): Promise<RunGate> {
    this.gateReads++;
    return Promise.resolve(this.gates.shift() ?? OPEN);
  }

  saveStep(
    step: RunStepEntity,
    gate: GateQuery,
  ): Promise<{ step: RunStepEntity; gate: RunGate; nextParked: ParkedReply | null }> {
    if (this.log) this.publishedAtStep.push(this.log.published.map(describeLine));
    this.steps.push(step);
    this.gateQueries.push(gate);
    return Promise.resolve({
      step,
      gate: this.gates.shift() ?? OPEN,
      nextParked: this.handedTo.shift() ?? null,
    });
  }

  saveToolResult(
    result: ToolCallEntity,
    gate: GateQuery,
  ): Promise<{ result: ToolCallEntity; gate: RunGate }> {
    this.results.push(result);
    this.gateQueries.push(gate);
    return Promise.resolve({ result, gate: this.gates.shift() ?? OPEN });
  }
}

/** A line as a short string: its type and the step or delta it carries. */
const describeLine = (event: RunEvent): string =>
  event.type === 'text.delta'
    ? `delta:${event.delta}`
    : 'step' in event
      ? `${event.type}:${event.step}`
      : event.type;

const clock: AgentTool = {
  name: 'clock',
  permission: 'clock',
  description: 'The time',
  parameters: { type: 'object', properties: {} },
  readOnly: true,
  execute: () => Promise.resolve({ now: '2026-01-01T00:00:00Z' }),
};

const broken: AgentTool = {
  ...clock,
  name: 'broken',
  execute: () => Promise.reject(new ToolError('the clock is broken')),
};

const settings = {
  defaultMaxSteps: 5,
  contextBudgetTokens: 100_000,
  modelMaxRetries: 0,
  modelRetryBaseMs: 1,
  modelRetryMaxDelayMs: 1,
  modelIdleTimeoutMs: 1000,
} as Settings;

function replyRun(
  said: string,
  options: { model?: string; gate?: RunGate; signal?: AbortSignal; guardrails?: GuardrailSettings } = {},
) {
  const log = new MemoryLog();
  const question = Object.assign(new MessageEntity(), { id: 'q', role: 'user', content: said });
  const run: ReplyRun = {
    reply: Object.assign(new MessageEntity(), { id: 'r', orgId: 'o', role: 'assistant', maxSteps: null }),
    question,
    thread: Object.assign(new ThreadEntity(), { id: 't', userId: null, memoryNamespace: null }),
    agent: Object.assign(new AgentEntity(), {
      id: 'a',
      model: options.model ?? 'builtin',
      instructions: 'Be brief.',
      tools: ['clock'],
      mcpServers: [],
      modelOptions: {},
      approvalRequired: [],
      fallbackModels: [],
      guardrails: options.guardrails ?? null,
    }),
    context: {
      stored: true,
      history: [question],
      steps: [],
      toolResults: [],
      journal: [],
      summary: null,
      gate: options.gate ?? OPEN,
    },
    summary: null,
    summaryUsageTokens: 0,
    attachments: new Map(),
    approvals: [],
    state: new RunState(log.asLog(), []),
    signal: options.signal ?? new AbortController().signal,
  };
  return { run, log };
}

/** The replies a loop woke (their ids), as the worker's ReplyWaker would promote their jobs. */
class WokenReplies implements Pick<RunScheduler, 'wake'> {
  readonly ids: string[] = [];

  wake(_threadId: string, next: string | null): Promise<void> {
    if (next) this.ids.push(next);
    return Promise.resolve();
  }
}

function loopWith(
  runs: MemoryRuns,
  tools: AgentTool[] = [clock, broken],
  woken = new WokenReplies(),
): StepLoop {
  const registry: Pick<ToolRegistry, 'toolsFor'> = { toolsFor: () => Promise.resolve(tools) };
  return new StepLoop(
    settings,
    runs as unknown as RunRepository,
    new ModelProvider(settings),
    registry as ToolRegistry,
    new RunMetrics(),
    new ApprovalGate(settings, {} as ToolApprovalRepository),
    new Guardrails(new ModelProvider(settings)),
    new UserBudgetTurn(runs as unknown as RunRepository, woken as unknown as RunScheduler),
  );
}

describe('StepLoop (builtin model)', () => {
  it('streams a one-step answer and succeeds, leaving its last step for the finish to store', async () => {
    const runs = new MemoryRuns();
    const { run, log } = replyRun('/say Hello there');

    const outcome = await loopWith(runs).run(run);

    expect(outcome).toMatchObject({ kind: 'success', questions: null, structuredOutput: null });
    expect(run.state.content).toBe('Hello there');
    // The last step is not checkpointed on its own: the finish's statement stores it (RunRepository.finish).
    expect(runs.steps).toHaveLength(0);
    expect(outcome.kind === 'success' && outcome.finalStep).toMatchObject({
      step: 1,
      text: 'Hello there',
      toolCalls: [],
      contentLength: 11,
    });
    // One line a word (CONTRACTS §6), held together for the finish.
    expect(log.appended).toEqual([
      { seq: 0, type: 'step.started', step: 1 },
      { seq: 1, type: 'text.delta', delta: 'Hello ' },
      { seq: 2, type: 'text.delta', delta: 'there' },
    ]);
    expect(log.published).toEqual([]);
  });

  it('runs the tool a step asks for and stores its result', async () => {
    const runs = new MemoryRuns();
    const { run, log } = replyRun('/tool clock\n/say done');

    const outcome = await loopWith(runs).run(run);

    expect(outcome.kind).toBe('success');
    // Step 1 (the tool call) is checkpointed before the tool runs; step 2, the last, goes with the finish.
    expect(runs.steps.map((step) => step.step)).toEqual([1]);
    expect(outcome.kind === 'success' && outcome.finalStep?.step).toBe(2);
    expect(runs.results).toEqual([
      expect.objectContaining({
        idempotencyKey: 'r:1:call_1',
        name: 'clock',
        isError: false,
        output: { now: '2026-01-01T00:00:00Z' },
      }),
    ]);
    expect(log.appended.map((event) => event.type)).toContain('tool.result');
  });

  it("publishes a step's lines only once the step is stored, the last step's only after the finish", async () => {
    const runs = new MemoryRuns();
    const { run, log } = replyRun('/tool clock\n/say done');
    runs.log = log;

    const outcome = await loopWith(runs).run(run);

    // When step 1 was stored, none of its lines had gone out; right after, they had, with its call and result.
    expect(runs.publishedAtStep).toEqual([[]]);
    const published = log.published.map(describeLine);
    expect(published).toEqual(['step.started:1', 'tool.call:1', 'tool.result:1']);
    // Step 2, the last, is held whole for the finish, which stores it before releasing it (ReplyFinisher).
    expect(outcome.kind === 'success' && outcome.finalStep?.step).toBe(2);
    expect(log.heldEvents().map(describeLine)).toEqual(['step.started:2', 'delta:done']);
  });

  it('gives a failing tool back to the model as an error result, not a failed run', async () => {
    const runs = new MemoryRuns();
    const { run } = replyRun('/tool broken\n/tool missing\n/say ok');

    const outcome = await loopWith(runs).run(run);

    expect(outcome.kind).toBe('success');
    expect(runs.results.map((result) => [result.name, result.isError, result.output])).toEqual([
      ['broken', true, 'the clock is broken'],
      ['missing', true, 'tool missing is not available'],
    ]);
  });

  it('stops before a model step once the gate says the budget is spent', async () => {
    const spent = {
      archived: false,
      agentBudget: { limit: 10, used: 10 },
      organizationBudget: null,
      userBudget: null,
    };
    const runs = new MemoryRuns([spent, spent]);
    const { run } = replyRun('/tool clock\n/say never');

    const outcome = await loopWith(runs).run(run);

    // The tool the first step asked for still runs; the next model call does not.
    expect(outcome).toEqual({ kind: 'budget_exhausted' });
    expect(runs.steps).toHaveLength(1);
    expect(runs.results).toHaveLength(1);
  });

  it("takes its budgeted end user's spending turn given back as it parks, then decides on the gate read with it", async () => {
    const budgeted = { ...OPEN, userBudget: { limit: 100, used: 10 } };
    const spentMeanwhile = { ...OPEN, userBudget: { limit: 100, used: 100 } };
    // Another reply of the user holds the turn at the first try, and gives it back, having spent the rest of the
    // budget, before the park: the park takes it instead.
    const runs = new MemoryRuns([spentMeanwhile], [false], ['taken']);
    const { run } = replyRun('/say never', { gate: budgeted });

    const outcome = await loopWith(runs).run(run);

    expect(runs.turnTries).toBe(1);
    expect(runs.parks).toHaveLength(1);
    expect(runs.gateReads).toBe(1);
    expect(outcome).toEqual({ kind: 'budget_exhausted' });
    expect(runs.steps).toHaveLength(0);
  });

  it('parks its reply while another holds the spending turn: what it streamed so far kept, no step begun', async () => {
    const budgeted = { ...OPEN, userBudget: { limit: 100000, used: 0 } };
    // The first step takes the turn; at the second another reply holds it.
    const runs = new MemoryRuns([budgeted, budgeted, budgeted], [true, false], ['parked']);
    const { run, log } = replyRun('/tool clock\n/say done', { gate: budgeted });

    await expect(loopWith(runs).run(run)).rejects.toBeInstanceOf(ReplyParkedError);

    expect(runs.steps).toHaveLength(1);
    expect(runs.results).toHaveLength(1);
    expect(runs.parks).toEqual([{ content: run.state.content, events: run.state.events }]);
    expect(runs.parks[0].events.map((event) => event.type)).toContain('tool.result');
    // The second step never began: its stream resumes with it when the reply is woken.
    expect(log.appended.map(describeLine)).not.toContain('step.started:2');
  });

  it('wakes the parked reply its stored step handed the spending turn to', async () => {
    const budgeted = { ...OPEN, userBudget: { limit: 100000, used: 0 } };
    const runs = new MemoryRuns([budgeted, budgeted, budgeted]);
    runs.handedTo.push({ id: 'parked-reply', threadId: 'other-thread' });
    const woken = new WokenReplies();
    const { run } = replyRun('/tool clock\n/say done', { gate: budgeted });

    expect(await loopWith(runs, [clock], woken).run(run)).toMatchObject({ kind: 'success' });
    expect(woken.ids).toEqual(['parked-reply']);
  });

  it('takes the spending turn before each model step of a budgeted end user, never without a budget', async () => {
    const budgeted = { ...OPEN, userBudget: { limit: 100000, used: 0 } };
    const withBudget = new MemoryRuns([budgeted, budgeted, budgeted, budgeted]);
    const first = replyRun('/tool clock\n/say done', { gate: budgeted });
    expect(await loopWith(withBudget).run(first.run)).toMatchObject({ kind: 'success' });
    expect(withBudget.turnTries).toBe(2);

    const unbudgeted = new MemoryRuns();
    const second = replyRun('/tool clock\n/say done');
    expect(await loopWith(unbudgeted).run(second.run)).toMatchObject({ kind: 'success' });
    expect(unbudgeted.turnTries).toBe(0);
  });

  it("counts the reply's own tokens, not yet in the counters, against the budget", async () => {
    // One token short of the limit: the first step may run, and what it spends closes the budget.
    const nearlySpent = {
      archived: false,
      agentBudget: { limit: 10, used: 9 },
      organizationBudget: null,
      userBudget: null,
    };
    const runs = new MemoryRuns([nearlySpent, nearlySpent]);
    const { run } = replyRun('/tool clock\n/say never', { gate: nearlySpent });

    const outcome = await loopWith(runs).run(run);

    expect(runs.steps[0].usageTokens).toBeGreaterThan(1);
    expect(outcome).toEqual({ kind: 'budget_exhausted' });
    expect(runs.steps).toHaveLength(1);
  });

  it('counts the tokens its run spent on the thread summary against the budget', async () => {
    const nearlySpent = { ...OPEN, userBudget: { limit: 100, used: 60 } };
    const runs = new MemoryRuns([nearlySpent]);
    const { run } = replyRun('/say never', { gate: nearlySpent });

    const outcome = await loopWith(runs).run({ ...run, summaryUsageTokens: 40 });

    expect(outcome).toEqual({ kind: 'budget_exhausted' });
    expect(runs.steps).toHaveLength(0);
  });

  it('is cancelled when the thread is archived or the run aborted', async () => {
    const archived = replyRun('/say hi', {
      gate: {
        archived: true,
        agentBudget: null,
        organizationBudget: null,
        userBudget: null,
      },
    });
    expect(await loopWith(new MemoryRuns()).run(archived.run)).toEqual({ kind: 'cancelled' });

    const controller = new AbortController();
    controller.abort();
    const aborted = replyRun('/say hi', { signal: controller.signal });
    expect(await loopWith(new MemoryRuns()).run(aborted.run)).toEqual({ kind: 'cancelled' });
  });

  it('ends as a model error when the model fails or is not available', async () => {
    const failing = replyRun('/fail');
    expect(await loopWith(new MemoryRuns()).run(failing.run)).toEqual({
      kind: 'model_error',
      reason: 'the builtin model was asked to fail (/fail)',
    });

    const unknown = replyRun('hi', { model: 'nowhere:model' });
    expect(await loopWith(new MemoryRuns()).run(unknown.run)).toEqual({
      kind: 'model_error',
      reason: 'model nowhere:model is not available in this deployment',
    });
  });

  it('replays a stored step instead of calling the model again', async () => {
    const runs = new MemoryRuns();
    const { run } = replyRun('/say not this');
    run.context.steps.push(
      Object.assign(new RunStepEntity(), {
        step: 1,
        text: 'stored',
        toolCalls: [],
        questions: null,
        structuredOutput: null,
        usageTokens: 3,
        contentLength: 6,
      }),
    );

    const outcome = await loopWith(runs).run(run);

    expect(outcome.kind).toBe('success');
    expect(runs.steps).toHaveLength(0);
    expect(run.state.content).toBe('');
  });

  it('stores a step an output guardrail stopped like any last step: its tokens, none of its text', async () => {
    const runs = new MemoryRuns();
    const guardrails: GuardrailSettings = { pii: 'off', blockedTerms: ['secret'], moderationModel: null };
    const { run, log } = replyRun('/say the secret is out now', { guardrails });
    // Checked on its way out only: the message itself passed its check already (a resumed run's is not checked).
    run.question = null;

    const outcome = await loopWith(runs).run(run);

    expect(outcome.kind).toBe('guardrail_blocked');
    const step = outcome.kind === 'guardrail_blocked' ? outcome.finalStep : null;
    // The call was read to its end: the builtin model reports what it spent in its last part.
    expect(step).toMatchObject({ step: 1, text: '', toolCalls: [], contentLength: 0, model: 'builtin' });
    expect(step!.usageTokens).toBeGreaterThan(0);
    expect(runs.steps).toHaveLength(0);
    // Withdrawn from the content and from the log: what was sent before the stop replays empty.
    expect(run.state.content).toBe('');
    const deltas = log.appended.filter((event) => event.type === 'text.delta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((event) => event.type === 'text.delta' && event.delta === '')).toBe(true);
    expect(log.appended.map((event) => event.type)).toContain('guardrail.triggered');
  });
});
