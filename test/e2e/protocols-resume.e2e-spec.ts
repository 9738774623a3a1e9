import { randomUUID } from 'node:crypto';
import { StreamResponse } from '@a2a-js/sdk';
import { BaseEvent, EventType, HttpAgent } from '@ag-ui/client';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';
import { a2aClient, collect, streamedText, userMessage } from './a2a.support';

/**
 * CONTRACTS §22: an A2A or AG-UI stream cut mid-reply resumes from the last event's id on another gateway, with
 * nothing lost or repeated, driven by the official clients (@a2a-js/sdk, @ag-ui/client). Neither client reads
 * the SSE `id:` itself, so the fetch each is given records the ids of the events it parses, in order.
 */
let environment: TestEnvironment;
let gateways: AppProcess[];
let worker: AppProcess;
let org: OrgFixture;
let agentId: string;

// Three processes to start on a shared 2-core machine: the setup gets its own budget.
beforeAll(async () => {
  environment = await createTestEnvironment();
  gateways = [await startGateway(environment.env), await startGateway(environment.env)];
  worker = await startWorker(environment.env, { WORKER_HEALTH_PORT: '0' });
  org = await createOrg(environment.env);
  agentId = (await createAgent(environment.env, org.org)).id;
}, 180000);

afterAll(async () => {
  await Promise.all([...(gateways ?? []).map((gateway) => gateway.stop()), worker?.stop()]);
  await environment?.dispose();
});

const words = Array.from({ length: 30 }, (_, index) => `w${index}`);
/** A reply that takes a few seconds: 30 words, 100 ms apart. */
const SLOW_REPLY = `/sleep 100\n/say ${words.join(' ')}`;

/**
 * A fetch that records the `id:` of every server-sent event of its responses, in order, as the bytes pass on to
 * the client: the client has parsed no event whose id is not recorded yet.
 */
function recordingFetch(ids: number[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream'))
      return response;
    const decoder = new TextDecoder();
    let buffer = '';
    const recording = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (\d+)$/m.exec(frame);
          if (/^data: /m.test(frame)) ids.push(id ? Number(id[1]) : NaN);
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(recording), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** An A2A client of `gateway` whose every SSE event id lands in `ids`. */
const a2aClientOn = (gateway: AppProcess, ids: number[]) =>
  a2aClient(gateway.url!, agentId, org.key, recordingFetch(ids));

describe('A2A: SubscribeToTask with Last-Event-ID', () => {
  it('continues a stream cut mid-reply on the other gateway: every update once, in order', async () => {
    const [first, second] = gateways;
    const firstIds: number[] = [];
    const onFirst = await a2aClientOn(first, firstIds);
    const abort = new AbortController();
    const before: StreamResponse[] = [];
    const stream = onFirst.sendMessageStream(
      {
        tenant: '',
        configuration: undefined,
        message: userMessage(SLOW_REPLY),
        metadata: { user_id: 'alice' },
      },
      { signal: abort.signal },
    );
    for await (const event of stream) {
      before.push(event);
      if (streamedText(before).includes('w5')) break;
    }
    // The connection drops: the client goes away mid-reply.
    abort.abort();
    const lastId = firstIds[before.length - 1];
    expect(lastId).toBeGreaterThan(0);
    const taskId = before[0].payload?.$case === 'task' ? before[0].payload.value.id : '';

    const secondIds: number[] = [];
    const onSecond = await a2aClientOn(second, secondIds);
    const after = await collect(
      onSecond.resubscribeTask(
        { tenant: '', id: taskId },
        { serviceParameters: { 'Last-Event-ID': String(lastId) } },
      ),
    );
    expect(secondIds.every((id) => id > lastId)).toBe(true);
    const last = after[after.length - 1].payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(3 /* TASK_STATE_COMPLETED */);
    expect(streamedText([...before, ...after])).toBe(words.join(' '));
    // Exactly the stream a client that never lost its connection got.
    const whole = await collect(onSecond.resubscribeTask({ tenant: '', id: taskId }));
    expect([...before, ...after]).toEqual(whole);
  });
});

describe('AG-UI: a run resumed with Last-Event-ID', () => {
  it('continues a run cut mid-reply on the other gateway: every delta once, one message assembled', async () => {
    const [first, second] = gateways;
    const firstIds: number[] = [];
    const onFirst = new HttpAgent({
      url: `${first.url}/ag-ui/agents/${agentId}`,
      headers: { Authorization: `Bearer ${org.key}` },
      fetch: recordingFetch(firstIds),
    });
    onFirst.addMessage({ id: randomUUID(), role: 'user', content: SLOW_REPLY });
    const before: BaseEvent[] = [];
    let cut = false;
    await onFirst.runAgent(
      { forwardedProps: { user_id: 'alice' } },
      {
        onEvent: ({ event }) => {
          // After the cut the client reports the aborted run itself (RUN_ERROR): not an event of the stream.
          // Events it had read before the cut took effect it still applies, and holds.
          if (cut && event.type === EventType.RUN_ERROR) return;
          before.push(event);
          // The connection drops: the front end's page goes away mid-reply.
          if (!cut && deltasOf(before).join('').includes('w5')) {
            cut = true;
            onFirst.abortRun();
          }
        },
      },
    );
    const lastId = firstIds[before.length - 1];
    expect(before.some((event) => event.type === EventType.RUN_FINISHED)).toBe(false);

    const secondIds: number[] = [];
    const onSecond = new HttpAgent({
      url: `${second.url}/ag-ui/agents/${agentId}`,
      headers: { Authorization: `Bearer ${org.key}`, 'Last-Event-ID': String(lastId) },
      fetch: recordingFetch(secondIds),
      threadId: onFirst.threadId,
      initialMessages: onFirst.messages,
    });
    const after: BaseEvent[] = [];
    let outcome: string | null = null;
    await onSecond.runAgent(
      { forwardedProps: { user_id: 'alice' } },
      {
        onEvent: ({ event }) => void after.push(event),
        onRunFinishedEvent: (params) => {
          outcome = params.outcome;
        },
      },
    );
    expect(outcome).toBe('success');
    expect(secondIds.every((id) => id > lastId)).toBe(true);
    // The run starts again, and so do the step and the message then open; every delta comes once.
    expect(after.slice(0, 3).map((event) => event.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.STEP_STARTED,
      EventType.TEXT_MESSAGE_START,
    ]);
    expect([...deltasOf(before), ...deltasOf(after)].join('')).toBe(words.join(' '));
    const replies = onSecond.messages.filter((message) => message.role === 'assistant');
    expect(replies).toHaveLength(1);
    expect(replies[0].content).toBe(words.join(' '));
  });
});

const deltasOf = (events: BaseEvent[]) =>
  events.flatMap((event) =>
    event.type === EventType.TEXT_MESSAGE_CONTENT ? [(event as unknown as { delta: string }).delta] : [],
  );
