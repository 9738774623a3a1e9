import { Settings } from '@app/config';
import {
  AgentEntity,
  GateQuery,
  MessageEntity,
  NewThreadSummary,
  ParkedReply,
  RunGate,
  ThreadEntity,
  ThreadSummaryRepository,
} from '@app/persistence';
import { MemoryRunEventLog } from '../testing/memory-run-event-log';
import { ModelProvider } from '../models/model-provider';
import { CompactionInput, ContextCompaction } from './context-compaction';
import { RunState } from './run-state';
import { UserBudgetTurn } from './user-budget-turn';

const settings = { compactionThresholdTokens: 0, contextBudgetTokens: 100_000 } as Settings;

const budget = (used: number, limit: number) => ({ used, limit });
const gateWith = (userBudget: RunGate['userBudget']): RunGate => ({
  archived: false,
  agentBudget: null,
  organizationBudget: null,
  userBudget,
});

/** What the compaction did, in order: the turn taken and given back, the model called, the summary stored. */
class Journal {
  readonly events: string[] = [];
}

/** The end user's spending turn, answering each take with the gate read after it (then the last one again). */
class RecordedTurn {
  constructor(
    private readonly journal: Journal,
    private readonly gates: RunGate[],
  ) {}

  take(_run: unknown, _query: GateQuery): Promise<RunGate> {
    this.journal.events.push('turn taken');
    return Promise.resolve(this.gates.length > 1 ? this.gates.shift()! : this.gates[0]);
  }

  giveBack(): Promise<void> {
    this.journal.events.push('turn given back');
    return Promise.resolve();
  }

  wake(parked: ParkedReply | null): Promise<void> {
    if (parked) this.journal.events.push(`parked reply ${parked.id} woken`);
    return Promise.resolve();
  }
}

/** A model provider whose one model records each summary call before the builtin model answers it. */
function recordedModels(journal: Journal): ModelProvider {
  const provider = new ModelProvider(settings);
  const builtin = provider.languageModel('builtin');
  return {
    languageModel: () => ({
      ...builtin,
      doGenerate: (options: Parameters<typeof builtin.doGenerate>[0]) => {
        journal.events.push('summary written');
        return builtin.doGenerate(options);
      },
    }),
  } as unknown as ModelProvider;
}

function compactionRun(gate: RunGate): CompactionInput {
  const history = ['first question', 'first answer', 'second question'].map((content, position) =>
    Object.assign(new MessageEntity(), {
      id: `m${position}`,
      position,
      role: position % 2 === 0 ? 'user' : 'assistant',
      content,
    }),
  );
  return {
    reply: Object.assign(new MessageEntity(), { id: 'r', orgId: 'o', role: 'assistant' }),
    thread: Object.assign(new ThreadEntity(), {
      id: 't',
      userId: 'alice',
      compactionRequestedAt: new Date(),
    }),
    agent: Object.assign(new AgentEntity(), {
      id: 'a',
      model: 'builtin',
      compaction: { keepRecentMessages: 1 },
    }),
    context: { stored: true, history, steps: [], toolResults: [], journal: [], summary: null, gate },
    state: new RunState(new MemoryRunEventLog().asLog(), []),
    signal: new AbortController().signal,
  };
}

/** `handedTo`: the parked reply the statement storing the summary hands the turn to. */
function compactionWith(journal: Journal, gates: RunGate[], handedTo: ParkedReply | null = null) {
  const summaries = {
    save: (summary: NewThreadSummary) => {
      // The statement that stores the summary gives the turn back with it (ThreadSummaryRepository.save).
      journal.events.push(`summary stored through message ${summary.throughMessageId}`);
      return Promise.resolve(handedTo);
    },
    dropRequest: (threadId: string) => (
      journal.events.push(`request of ${threadId} dropped`),
      Promise.resolve()
    ),
  } as unknown as ThreadSummaryRepository;
  const turn = new RecordedTurn(journal, gates) as unknown as UserBudgetTurn;
  return new ContextCompaction(recordedModels(journal), summaries, settings, turn);
}

describe('ContextCompaction and the end user’s spending turn', () => {
  it('writes a budgeted user’s summary in their turn, given back by the statement that stores it', async () => {
    const journal = new Journal();
    const gate = gateWith(budget(100, 1000));
    const view = await compactionWith(journal, [gate]).prepare(compactionRun(gate));
    expect(journal.events).toEqual(['turn taken', 'summary written', 'summary stored through message m1']);
    expect(view.summary).toContain('first question');
    expect(view.messages.map((message) => message.id)).toEqual(['m2']);
    expect(view.summaryUsageTokens).toBeGreaterThan(0);
  });

  it('wakes the parked reply of the user that the stored summary handed the turn to', async () => {
    const journal = new Journal();
    const gate = gateWith(budget(100, 1000));
    await compactionWith(journal, [gate], { id: 'p', threadId: 'pt' }).prepare(compactionRun(gate));
    expect(journal.events).toEqual([
      'turn taken',
      'summary written',
      'summary stored through message m1',
      'parked reply p woken',
    ]);
  });

  it('writes no summary when the user’s other replies spent the budget while it waited for the turn', async () => {
    const journal = new Journal();
    const view = await compactionWith(journal, [gateWith(budget(1000, 1000))]).prepare(
      compactionRun(gateWith(budget(100, 1000))),
    );
    expect(journal.events).toEqual(['turn taken', 'turn given back']);
    expect(view.summary).toBeNull();
    expect(view.messages).toHaveLength(3);
  });

  it('takes no turn for a user without a budget', async () => {
    const journal = new Journal();
    await compactionWith(journal, [gateWith(null)]).prepare(compactionRun(gateWith(null)));
    expect(journal.events).toEqual(['summary written', 'summary stored through message m1']);
  });
});

describe('ContextCompaction’s cut point (POST /chat/{id}/compact asks for it whatever the size)', () => {
  const withKeep = (keepRecentMessages: number) => {
    const run = compactionRun(gateWith(null));
    run.agent.compaction = { ...run.agent.compaction, keepRecentMessages } as AgentEntity['compaction'];
    return run;
  };

  it('summarizes every message but the agent’s recent ones, through the last message before them', async () => {
    const journal = new Journal();
    const view = await compactionWith(journal, [gateWith(null)]).prepare(withKeep(2));
    expect(journal.events).toEqual(['summary written', 'summary stored through message m0']);
    expect(view.messages.map((message) => message.id)).toEqual(['m1', 'm2']);
  });

  it('keeps the reply’s own question word for word even when the agent keeps no recent message', async () => {
    const journal = new Journal();
    const view = await compactionWith(journal, [gateWith(null)]).prepare(withKeep(0));
    expect(journal.events).toEqual(['summary written', 'summary stored through message m1']);
    expect(view.messages.map((message) => message.id)).toEqual(['m2']);
  });

  it('writes nothing, and answers the request, when no message is older than the recent ones', async () => {
    const journal = new Journal();
    const view = await compactionWith(journal, [gateWith(null)]).prepare(withKeep(3));
    expect(journal.events).toEqual(['request of t dropped']);
    expect(view.messages).toHaveLength(3);
  });
});
