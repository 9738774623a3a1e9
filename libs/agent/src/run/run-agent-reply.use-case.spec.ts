import { Settings } from '@app/config';
import {
  AgentEntity,
  FinishedReply,
  ParkedReply,
  LoadedRun,
  MessageEntity,
  RunContext,
  RunRepository,
  RunStepEntity,
  ThreadEntity,
  ToolApprovalRepository,
} from '@app/persistence';
import { RunEventWriter, RunSupersededError } from '@app/run-events';
import { ActiveRuns, RunHandedBackError } from './active-runs';
import { ContextCompaction } from './context-compaction';
import { ModelAttachments } from '../model-attachments';
import { ReplyFinisher, RunEnding } from './reply-finisher';
import { RunAgentReply } from './run-agent-reply.use-case';
import { RunMetrics } from './run-metrics';
import { RunStartWaitWindow } from './run-start-wait-window';
import { RunScheduler } from './run-scheduler';
import { RunState } from './run-state';
import { StepLoop } from './step-loop';
import { ReplyRun } from './run.types';
import { ReplyParkedError, UserBudgetTurn } from './user-budget-turn';
import { StreamJournal } from './stream-journal';
import { MemoryRunEventLog } from '../testing/memory-run-event-log';
import { recordSpans } from '../testing/recorded-spans';

const spans = recordSpans();

const reply = Object.assign(new MessageEntity(), {
  id: 'r',
  threadId: 't',
  orgId: 'o',
  role: 'assistant',
  agentId: 'a',
  live: true,
  status: 'running',
  position: 1,
  replyToId: 'q',
  budgetTurnParkedAt: null,
});
const thread = Object.assign(new ThreadEntity(), { id: 't', orgId: 'o', userId: 'u', archivedAt: null });
const agent = Object.assign(new AgentEntity(), { id: 'a', name: 'helper', approvalRequired: [] });

const UNBUDGETED: RunContext['gate'] = {
  archived: false,
  agentBudget: null,
  organizationBudget: null,
  userBudget: null,
};

/** What the loop does instead of the builtin model's one step (the default), given its run and its controller. */
type LoopBehaviour = (run: ReplyRun, activeRuns: ActiveRuns) => Promise<RunEnding>;

/** A run's world in memory: what each collaborator was asked, and what the log had published when. */
function world(
  options: {
    loaded?: Partial<LoadedRun>;
    journal?: string[];
    /** The reply's stored steps (a run that resumes). */
    steps?: RunStepEntity[];
    gate?: RunContext['gate'];
    loop?: LoopBehaviour;
    /** What the final statement answers (by default the thread's next reply r2, nothing else). */
    finished?: FinishedReply | null;
    /** Whether the reply's row still exists when the claim asks (false: erased meanwhile). */
    stored?: boolean;
    /** The run's first read of its context fails (then it reads again). */
    contextFailsOnce?: boolean;
    /** Traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT is set). */
    traced?: boolean;
  } = {},
) {
  const log = new MemoryRunEventLog();
  const calls: string[] = [];
  const publishedWhenLoopStarted: number[] = [];
  const loaded: LoadedRun = { reply, thread, agent, agentVersion: 1, start: 'started', ...options.loaded };
  const context: RunContext = {
    stored: options.stored ?? true,
    history: [],
    steps: options.steps ?? [],
    toolResults: [],
    journal: options.journal ?? [],
    summary: null,
    gate: options.gate ?? UNBUDGETED,
  };
  const scheduler = {
    loadAndStart: () => Promise.resolve(loaded),
    wake: (threadId: string, next: string | null) => (
      calls.push(`wake ${threadId} ${next}`),
      Promise.resolve()
    ),
    wakeNext: (threadId: string) => (calls.push(`wakeNext ${threadId}`), Promise.resolve()),
    wakeOrg: (orgId: string) => (calls.push(`wakeOrg ${orgId}`), Promise.resolve()),
  };
  // As RunEventWriter.claim: the log claimed, then the reply's row asked for, and a run of an erased reply stopped.
  const writer = {
    claim: async (messageId: string, stored: () => Promise<boolean>) => {
      calls.push('claim');
      if (!(await stored())) throw new RunSupersededError(messageId, 0);
      return { log: log.asLog(), written: [] };
    },
  };
  const journal = {
    watch: () => calls.push('journal.watch'),
    unwatch: () => calls.push('journal.unwatch'),
  };
  const activeRuns = new ActiveRuns();
  const stepLoop = {
    run: (run: ReplyRun) => {
      if (options.loop) return options.loop(run, activeRuns);
      publishedWhenLoopStarted.push(...log.published.map((event) => event.seq));
      run.state.emitOnce({ type: 'step.started', step: 2 });
      run.state.emitText('llo');
      return Promise.resolve<RunEnding>({
        kind: 'success',
        questions: null,
        structuredOutput: null,
        finalStep: null,
      });
    },
  };
  const finished: FinishedReply | null =
    options.finished !== undefined
      ? options.finished
      : { nextReplyId: 'r2', nextOfOrg: null, nextParked: null };
  const finisher = {
    finish: async (
      _reply: MessageEntity,
      _agent: AgentEntity,
      state: RunState,
      ending: RunEnding,
      beforeFinalStatement: () => Promise<void>,
    ) => {
      await beforeFinalStatement();
      calls.push(ending.kind === 'success' ? `finish ${state.content}` : `finish ${ending.kind}`);
      return finished;
    },
    closeEnded: () => (calls.push('closeEnded'), Promise.resolve()),
  };
  let contextFails = options.contextFailsOnce ?? false;
  const runs = {
    context: () => {
      calls.push('context');
      if (contextFails) {
        contextFails = false;
        return Promise.reject(new Error('connection lost'));
      }
      return Promise.resolve(context);
    },
    isStored: () => (calls.push('isStored'), Promise.resolve(options.stored ?? true)),
  };
  const files: ModelAttachments = {
    attachmentTextForModel: () => Promise.resolve(''),
    imagesForModel: () => Promise.resolve([]),
  };
  // A thread under the threshold: the run sees its whole history.
  const compaction = {
    prepare: (run: { context: RunContext }) =>
      Promise.resolve({ summary: null, messages: run.context.history }),
  };
  const userBudgetTurn = {
    giveBack: (messageId: string) => (calls.push(`giveBack ${messageId}`), Promise.resolve()),
    // As UserBudgetTurn's: nothing to wake when no parked reply was handed the turn.
    wake: (parked: ParkedReply | null) => {
      if (parked) calls.push(`wakeParked ${parked.id}`);
      return Promise.resolve();
    },
  };
  const startWaits = new RunStartWaitWindow();
  const useCase = new RunAgentReply(
    runs as unknown as RunRepository,
    writer as unknown as RunEventWriter,
    stepLoop as unknown as StepLoop,
    journal as unknown as StreamJournal,
    activeRuns,
    scheduler as unknown as RunScheduler,
    finisher as unknown as ReplyFinisher,
    new RunMetrics(),
    startWaits,
    files,
    compaction as unknown as ContextCompaction,
    { ofReply: () => Promise.resolve([]) } as unknown as ToolApprovalRepository,
    userBudgetTurn as unknown as UserBudgetTurn,
    { otelExporterOtlpEndpoint: options.traced ? 'http://collector:4318' : undefined } as Settings,
  );
  return { useCase, log, calls, publishedWhenLoopStarted, activeRuns, startWaits };
}

const input = { messageId: 'r', finalAttempt: false };

describe('RunAgentReply', () => {
  it('publishes what PostgreSQL holds (the journal of a step in progress) before the loop, then finishes and wakes the next reply', async () => {
    const { useCase, log, calls, publishedWhenLoopStarted } = world({
      journal: ['{"seq":1,"type":"step.started","step":1}\n{"seq":2,"type":"text.delta","delta":"He"}'],
    });

    expect(await useCase.execute(input)).toBe('done');

    // message.started and the journaled lines went out before the model was asked anything.
    expect(publishedWhenLoopStarted).toEqual([0, 1, 2]);
    expect(log.appended.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4]);
    // The loop's own lines wait for the finish, which sees the whole content.
    expect(log.heldEvents().map((event) => event.type)).toEqual(['step.started', 'text.delta']);
    // The journal lets go of the log right before the final statement (which deletes its rows), and at the end.
    expect(calls).toEqual([
      'claim',
      'context',
      'journal.watch',
      'journal.unwatch',
      'finish Hello',
      'journal.unwatch',
      'wake t r2',
    ]);
  });

  it('tells admission control how long a first start waited since its reply was enqueued, and nothing for a run without that time', async () => {
    jest.spyOn(Date, 'now').mockReturnValue(1_800_000_000_000);
    const first = world();
    await first.useCase.execute({ ...input, enqueuedAt: 1_800_000_000_000 - 320 });
    expect(first.startWaits.take()).toBe(320);

    const deferred = world();
    await deferred.useCase.execute(input);
    expect(deferred.startWaits.take()).toBeNull();
    jest.restoreAllMocks();
  });

  it('publishes again the lines of its stored steps that the log lost, with their seqs, before the loop', async () => {
    const step = Object.assign(new RunStepEntity(), {
      step: 1,
      text: 'He',
      streamedText: 'He',
      deltaLengths: [2],
      toolCalls: [],
      questions: null,
    });
    const { useCase, log, publishedWhenLoopStarted } = world({ steps: [step] });

    expect(await useCase.execute(input)).toBe('done');

    expect(publishedWhenLoopStarted).toEqual([0, 1, 2]);
    expect(log.published.slice(1, 3)).toEqual([
      { seq: 1, type: 'step.started', step: 1 },
      { seq: 2, type: 'text.delta', delta: 'He' },
    ]);
  });

  it('records the agent version its start fixed on the reply it runs, as message.started says', async () => {
    const { useCase, log } = world({
      loaded: { reply: { ...reply, agentVersion: null } as MessageEntity, agentVersion: 3 },
    });
    expect(await useCase.execute(input)).toBe('done');
    expect(log.published[0]).toMatchObject({ type: 'message.started', agent_version: 3 });
  });

  it('keeps the version a resumed reply already runs', async () => {
    const { useCase, log } = world({
      loaded: { reply: { ...reply, agentVersion: 2 } as MessageEntity, agentVersion: 3 },
    });
    expect(await useCase.execute(input)).toBe('done');
    expect(log.published[0]).toMatchObject({ type: 'message.started', agent_version: 2 });
  });

  it('spans the agent invocation only when traces are exported', async () => {
    await world().useCase.execute(input);
    expect(spans.getFinishedSpans()).toEqual([]);

    await world({ traced: true }).useCase.execute(input);
    expect(spans.getFinishedSpans().map((span) => span.name)).toEqual(['invoke_agent helper']);
  });

  it("asks whether the reply is stored after its claim, in the context's read: erased, the run stops there", async () => {
    const { useCase, calls, log } = world({ stored: false });
    await expect(useCase.execute(input)).rejects.toBeInstanceOf(RunSupersededError);
    expect(calls).toEqual(['claim', 'context']);
    expect(log.published).toEqual([]);
  });

  it('asks alone when the context read failed, and reads the context again inside the run', async () => {
    const { useCase, calls } = world({ contextFailsOnce: true });
    expect(await useCase.execute(input)).toBe('done');
    expect(calls.filter((call) => /^(claim|context|isStored)$/.test(call))).toEqual([
      'claim',
      'context',
      'isStored',
      'context',
    ]);
  });

  it('asks alone on an archived thread, whose run reads no context', async () => {
    const archived = { ...thread, archivedAt: new Date() } as ThreadEntity;
    const { useCase, calls } = world({ loaded: { thread: archived } });
    expect(await useCase.execute(input)).toBe('done');
    expect(calls.slice(0, 2)).toEqual(['claim', 'isStored']);
    expect(calls).not.toContain('context');
  });

  it('answers wait, and claims nothing, while the reply must wait for its thread or its organization', async () => {
    const { useCase, calls } = world({ loaded: { start: 'blocked' } });
    expect(await useCase.execute(input)).toBe('wait');
    expect(calls).toEqual([]);
  });

  it('closes a reply that is no longer live and wakes the next reply of its thread', async () => {
    const { useCase, calls } = world({ loaded: { reply: { ...reply, live: false } as MessageEntity } });
    expect(await useCase.execute(input)).toBe('done');
    expect(calls).toEqual(['closeEnded', 'wakeNext t']);
  });

  it("wakes the parked reply its final statement handed the end user's spending turn to, before the next reply", async () => {
    const { useCase, calls } = world({
      gate: { ...UNBUDGETED, userBudget: { limit: 100, used: 1 } },
      finished: { nextReplyId: 'r2', nextOfOrg: null, nextParked: { id: 'p1', threadId: 'tp' } },
    });
    expect(await useCase.execute(input)).toBe('done');
    // The turn went back in the final statement itself: no give-back of its own.
    expect(calls.slice(-2)).toEqual(['wakeParked p1', 'wake t r2']);
    expect(calls).not.toContain('giveBack r');
  });

  it('gives back the spending turn itself when another ended the reply first (the final statement closed nothing)', async () => {
    const { useCase, calls } = world({
      gate: { ...UNBUDGETED, userBudget: { limit: 100, used: 1 } },
      finished: null,
    });
    expect(await useCase.execute(input)).toBe('done');
    expect(calls.slice(-3)).toEqual(['giveBack r', 'wakeNext t', 'wakeOrg o']);
  });

  it("answers wait when the run parked for its end user's spending turn: nothing finished, what it streamed published", async () => {
    const { useCase, calls, log } = world({
      gate: { ...UNBUDGETED, userBudget: { limit: 100, used: 1 } },
      loop: () => Promise.reject(new ReplyParkedError()),
    });
    expect(await useCase.execute(input)).toBe('wait');
    expect(log.published.map((event) => event.type)).toEqual(['message.started']);
    // The reply stays live, so its thread's next reply waits; under a cap its organization's slot is freed.
    expect(calls).toEqual(['claim', 'context', 'journal.watch', 'journal.unwatch', 'wakeOrg o']);
  });

  it('ends a reply cancelled while it parked rather than leave it waiting', async () => {
    const { useCase, calls } = world({
      loop: (_run, activeRuns) => {
        activeRuns.cancel('t', 'r');
        return Promise.reject(new ReplyParkedError());
      },
    });
    expect(await useCase.execute(input)).toBe('done');
    expect(calls).toContain('finish cancelled');
  });

  it('passes on the spending turn handed to a parked reply that was closed meanwhile', async () => {
    const parkedThenClosed = { ...reply, live: false, budgetTurnParkedAt: new Date() } as MessageEntity;
    const { useCase, calls } = world({ loaded: { reply: parkedThenClosed } });
    expect(await useCase.execute(input)).toBe('done');
    expect(calls).toEqual(['closeEnded', 'giveBack r', 'wakeNext t']);
  });

  it('hands a job back untouched when the worker is stopping', async () => {
    const { useCase, calls, activeRuns } = world();
    activeRuns.handBackAll();
    await expect(useCase.execute(input)).rejects.toBeInstanceOf(RunHandedBackError);
    expect(calls).toEqual([]);
  });
});
