import { randomUUID } from 'node:crypto';
import { AgentSubscriber, BaseEvent, EventType, HttpAgent, Interrupt } from '@ag-ui/client';
import { createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess } from '../support/processes';
import { expectFirstThenSecond, guideSnippet, runSnippet, useProtocolWorld } from './protocols.support';

/**
 * AG-UI 1.0 (CONTRACTS §22) driven by the official @ag-ui/client HttpAgent against a real gateway and worker
 * running the builtin model: the run's events and the messages the agent assembles from them, follow-ups in one
 * thread, tool calls, an approval as an interrupt answered by the next run's resume, cancel, other organizations
 * and end users kept out.
 */
const world = useProtocolWorld();
let gateway: AppProcess;
let org: OrgFixture;
let agentId: string;
let carefulAgentId: string;
let service: ReturnType<typeof api>;

beforeAll(() => {
  ({ gateway, org, agentId, carefulAgentId, service } = world);
});

const httpAgent = (credential: string, agent = agentId) =>
  new HttpAgent({
    url: `${gateway.url}/ag-ui/agents/${agent}`,
    headers: { Authorization: `Bearer ${credential}` },
  });

interface Run {
  events: BaseEvent[];
  outcome: string | null;
  interrupts: Interrupt[];
}

/** One run of the agent with a user message (or resume entries), as a front end makes it. */
async function run(
  agent: HttpAgent,
  text: string | null,
  userId: string | undefined,
  extra: Parameters<HttpAgent['runAgent']>[0] = {},
  subscriber: AgentSubscriber = {},
): Promise<Run> {
  if (text !== null) agent.addMessage({ id: randomUUID(), role: 'user', content: text });
  const result: Run = { events: [], outcome: null, interrupts: [] };
  await agent.runAgent(
    { forwardedProps: userId ? { user_id: userId } : {}, ...extra },
    {
      ...subscriber,
      onEvent: ({ event }) => {
        result.events.push(event);
      },
      onRunFinishedEvent: (params) => {
        result.outcome = params.outcome;
        if (params.outcome === 'interrupt') result.interrupts = params.interrupts;
      },
    },
  );
  return result;
}

const typesOf = (events: BaseEvent[]) => events.map((event) => event.type);
const deltasOf = (events: BaseEvent[]) =>
  events.flatMap((event) =>
    event.type === EventType.TEXT_MESSAGE_CONTENT ? [(event as unknown as { delta: string }).delta] : [],
  );
const lastAssistantText = (agent: HttpAgent): string => {
  const replies = agent.messages.filter((message) => message.role === 'assistant');
  return String(replies[replies.length - 1]?.content ?? '');
};

/** The Parley threads of an end user, newest first. */
const threadsOf = async (userId: string) =>
  (await service.get(`/chat?user_id=${userId}`)).body as { id: string; agent_id?: string }[];

describe('runs', () => {
  it('streams a reply: RUN_STARTED, a step, the text word by word, RUN_FINISHED success', async () => {
    const words = Array.from({ length: 12 }, (_, index) => `w${index}`);
    const agent = httpAgent(org.key);
    const { events, outcome } = await run(agent, `/say ${words.join(' ')}`, 'alice');
    expect(outcome).toBe('success');
    expect(typesOf(events).slice(0, 3)).toEqual([
      EventType.RUN_STARTED,
      EventType.STEP_STARTED,
      EventType.TEXT_MESSAGE_START,
    ]);
    expect(typesOf(events).slice(-3)).toEqual([
      EventType.TEXT_MESSAGE_END,
      EventType.STEP_FINISHED,
      EventType.RUN_FINISHED,
    ]);
    expect(deltasOf(events).join('')).toBe(words.join(' '));
    expect(events[0]).toMatchObject({ threadId: agent.threadId });
  });

  it("answers with the agent's messages: the reply as one assistant message, exactly", async () => {
    const agent = httpAgent(org.key);
    agent.addMessage({ id: randomUUID(), role: 'user', content: '/say hello from parley' });
    const { newMessages } = await agent.runAgent({ forwardedProps: { user_id: 'alice' } });
    expect(newMessages).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'hello from parley' }),
    ]);
    expect(lastAssistantText(agent)).toBe('hello from parley');
  });

  it('posts the next run of the same thread id as a follow-up in one Parley thread', async () => {
    const agent = httpAgent(org.key);
    await run(agent, '/say first', 'dave');
    await run(agent, '/say second', 'dave');
    expect(lastAssistantText(agent)).toBe('second');
    const threads = await threadsOf('dave');
    expect(threads).toHaveLength(1);
    await expectFirstThenSecond(service, threads[0].id, 'dave');
  });

  it('shows a tool call with its arguments and its result', async () => {
    const agent = httpAgent(org.key);
    const { events, outcome } = await run(agent, '/tool clock {}', 'alice');
    expect(outcome).toBe('success');
    expect(events.find((event) => event.type === EventType.TOOL_CALL_START)).toMatchObject({
      toolCallName: 'clock',
    });
    expect(events.find((event) => event.type === EventType.TOOL_CALL_ARGS)).toMatchObject({ delta: '{}' });
    const result = events.find((event) => event.type === EventType.TOOL_CALL_RESULT) as unknown as {
      content: string;
    };
    expect(result.content.length).toBeGreaterThan(0);
    const tool = agent.messages.find((message) => message.role === 'tool');
    expect(tool).toMatchObject({ content: result.content });
    // Two steps: the call, then the answer.
    expect(typesOf(events).filter((type) => type === EventType.STEP_STARTED)).toHaveLength(2);
  });

  it('ends a failed reply with RUN_ERROR saying why', async () => {
    const agent = httpAgent(org.key);
    const events: BaseEvent[] = [];
    agent.addMessage({ id: randomUUID(), role: 'user', content: '/fail' });
    await agent.runAgent(
      { forwardedProps: { user_id: 'alice' } },
      { onEvent: ({ event }) => void events.push(event) },
    );
    const error = events.find((event) => event.type === EventType.RUN_ERROR) as unknown as {
      message: string;
    };
    expect(error.message.length).toBeGreaterThan(0);
    expect(events[events.length - 1].type).toBe(EventType.RUN_ERROR);
  });

  it('ends a cancelled reply with RUN_FINISHED outcome cancelled', async () => {
    const agent = httpAgent(org.key);
    const words = Array.from({ length: 40 }, (_, index) => `w${index}`).join(' ');
    let stopped: Promise<{ status: number }> | null = null;
    const { events, outcome } = await run(
      agent,
      `/say ${words}\n/sleep 200`,
      'alice',
      {},
      {
        onTextMessageContentEvent: () => {
          // The front end's stop button: the chat's stop route, with the thread id it runs.
          stopped ??= service.post(`/ai-sdk/chat/${agent.threadId}/stop?user_id=alice`, {});
        },
      },
    );
    expect((await stopped!).status).toBe(204);
    expect(outcome).toBe('cancelled');
    expect(deltasOf(events).join('').length).toBeLessThan(words.length);
  });
});

describe('approvals as interrupts (CONTRACTS §19)', () => {
  it("ends the run at the approval with an interrupt; the next run's resume approves it and the reply ends", async () => {
    const agent = httpAgent(org.key, carefulAgentId);
    const first = await run(agent, '/tool clock {}', 'alice');
    expect(first.outcome).toBe('interrupt');
    expect(first.interrupts).toEqual([
      expect.objectContaining({
        reason: 'tool_approval',
        message: 'Allow clock with {}?',
        toolCallId: expect.any(String),
        responseSchema: expect.objectContaining({ required: ['decision'] }),
      }),
    ]);
    expect(agent.pendingInterrupts).toHaveLength(1);
    const [interrupt] = first.interrupts;
    expect(interrupt.id).toBe(interrupt.toolCallId);
    const second = await run(agent, null, 'alice', {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { decision: 'approve' } }],
    });
    expect(second.outcome).toBe('success');
    // The second run continues after the approval request: the result of the call, then the text.
    expect(second.events[0].type).toBe(EventType.RUN_STARTED);
    expect(second.events.find((event) => event.type === EventType.TOOL_CALL_RESULT)).toMatchObject({
      toolCallId: interrupt.toolCallId,
    });
    expect(second.events.some((event) => event.type === EventType.TOOL_CALL_START)).toBe(false);
    expect(agent.pendingInterrupts).toEqual([]);
    expect(lastAssistantText(agent).length).toBeGreaterThan(0);
  });

  it('denies a call whose interrupt is cancelled', async () => {
    const agent = httpAgent(org.key, carefulAgentId);
    const first = await run(agent, '/tool clock {}', 'erin');
    const [interrupt] = first.interrupts;
    const second = await run(agent, null, 'erin', {
      resume: [{ interruptId: interrupt.id, status: 'cancelled' }],
    });
    expect(second.outcome).toBe('success');
    const result = second.events.find((event) => event.type === EventType.TOOL_CALL_RESULT) as unknown as {
      content: string;
    };
    expect(JSON.parse(result.content)).toMatchObject({ denied: true });
  });
});

describe('organizations and end users', () => {
  // HttpAgent logs the error it then raises; the raised one is what these tests read.
  beforeEach(() => jest.spyOn(console, 'error').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it("refuses another organization's agent, in AG-UI's error form", async () => {
    const other = await createOrg(world.environment.env);
    const agent = httpAgent(other.key);
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'hi' });
    const error = (await agent
      .runAgent({ forwardedProps: { user_id: 'alice' } })
      .catch((thrown: unknown) => thrown)) as { status: number; payload: unknown };
    expect(error.status).toBe(404);
    expect(error.payload).toEqual({ type: 'RUN_ERROR', message: 'Agent not found', code: 'not_found' });
  });

  it('scopes an end-user token to its user: its own thread for the same thread id, no one else named', async () => {
    const [carol, bob] = await Promise.all(
      ['carol', 'bob'].map(
        async (userId) => (await service.post('/end-user-tokens', { user_id: userId })).body,
      ),
    );
    const asCarol = httpAgent(carol.token as string);
    await run(asCarol, '/say for carol', undefined);
    expect(lastAssistantText(asCarol)).toBe('for carol');
    // Bob with carol's thread id has a conversation of his own.
    const asBob = new HttpAgent({
      url: `${gateway.url}/ag-ui/agents/${agentId}`,
      headers: { Authorization: `Bearer ${bob.token}` },
      threadId: asCarol.threadId,
    });
    await run(asBob, '/say for bob', undefined);
    const [carolThreads, bobThreads] = await Promise.all([threadsOf('carol'), threadsOf('bob')]);
    expect(carolThreads).toHaveLength(1);
    expect(bobThreads).toHaveLength(1);
    expect(bobThreads[0].id).not.toBe(carolThreads[0].id);
    const carolThread = await service.get(`/chat/${carolThreads[0].id}?user_id=carol`);
    expect(carolThread.body.messages.map((message: { content: string }) => message.content)).toEqual([
      '/say for carol',
      'for carol',
    ]);
    // Another end user named with the token: 403.
    const named = httpAgent(carol.token as string);
    named.addMessage({ id: randomUUID(), role: 'user', content: 'hi' });
    const error = (await named
      .runAgent({ forwardedProps: { user_id: 'alice' } })
      .catch((thrown: unknown) => thrown)) as { status: number };
    expect(error.status).toBe(403);
  });
});

describe('the guide', () => {
  it('runs the AG-UI example as written, with an end-user token', async () => {
    const minted = await service.post('/end-user-tokens', { user_id: 'frank' });
    const lines = await runSnippet(guideSnippet('### Front ends: AG-UI', gateway.url!), {
      PARLEY_TOKEN: minted.body.token as string,
      PARLEY_AGENT: agentId,
    });
    expect(lines.filter((line) => line === 'success')).toHaveLength(2);
    expect(lines[lines.length - 1]).toBe('2 replies');
    const threads = await threadsOf('frank');
    expect(threads).toHaveLength(1);
  });
});
