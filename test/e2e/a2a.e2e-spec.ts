import { Task, TaskState } from '@a2a-js/sdk';
import { Client } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess } from '../support/processes';
import { expectFirstThenSecond, guideSnippet, runSnippet, useProtocolWorld } from './protocols.support';
import {
  a2aClient,
  artifactText,
  collect,
  historyData,
  streamedText,
  textPart,
  userMessage,
} from './a2a.support';

/**
 * A2A v1.0 (CONTRACTS §22) driven by the official @a2a-js/sdk client against a real gateway and worker running
 * the builtin model: the Agent Card, blocking and streamed messages, follow-ups in a context, tool activity as
 * data parts, an approval answered in the task, cancel, other organizations and end users kept out.
 */
const world = useProtocolWorld();
let gateway: AppProcess;
let org: OrgFixture;
let agentId: string;
let carefulAgentId: string;
let service: ReturnType<typeof api>;
let client: Client;

beforeAll(async () => {
  ({ gateway, org, agentId, carefulAgentId, service } = world);
  client = await a2aClient(gateway.url!, agentId, org.key);
});

const asAlice = { metadata: { user_id: 'alice' } };

function asTask(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

async function send(to: Client, text: string, fields = {}, params = asAlice): Promise<Task> {
  return asTask(
    await to.sendMessage({
      tenant: '',
      configuration: undefined,
      message: userMessage(text, fields),
      ...params,
    }),
  );
}

describe('the Agent Card', () => {
  it('names the agent, its JSON-RPC interface, streaming and the Bearer scheme', async () => {
    const card = await client.getAgentCard();
    expect(card).toMatchObject({
      name: expect.stringMatching(/^agent-/),
      supportedInterfaces: [
        { url: `${gateway.url}/a2a/agents/${agentId}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true },
    });
    expect(card.securitySchemes.bearer.scheme).toMatchObject({
      $case: 'httpAuthSecurityScheme',
      value: { scheme: 'Bearer' },
    });
    expect(card.skills.map((skill) => skill.id)).toContain('clock');
  });
});

describe('messages and tasks', () => {
  it('answers a blocking message with the completed task, its text the artifact, its context the thread', async () => {
    const task = await send(client, '/say hello from parley');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(task)).toBe('hello from parley');
    const thread = await service.get(`/chat/${task.contextId}?user_id=alice`);
    expect(thread.status).toBe(200);
    expect(thread.body.messages.map((message: { id: string }) => message.id)).toContain(task.id);
    expect(await client.getTask({ tenant: '', id: task.id, historyLength: undefined })).toEqual(task);
  });

  it('streams the task, then every word as an artifact chunk, then completed', async () => {
    const words = Array.from({ length: 12 }, (_, index) => `w${index}`);
    const events = await collect(
      client.sendMessageStream({
        tenant: '',
        configuration: undefined,
        message: userMessage(`/say ${words.join(' ')}`),
        ...asAlice,
      }),
    );
    expect(events[0].payload?.$case).toBe('task');
    expect(streamedText(events)).toBe(words.join(' '));
    const last = events[events.length - 1].payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const taskId = events[0].payload?.$case === 'task' ? events[0].payload.value.id : '';
    // A resubscription replays the task's updates from the start.
    const replayed = await collect(client.resubscribeTask({ tenant: '', id: taskId }));
    expect(replayed).toEqual(events);
  });

  it('posts a message with a known contextId as a follow-up in that thread', async () => {
    const first = await send(client, '/say first');
    const second = await send(client, '/say second', { contextId: first.contextId });
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect(artifactText(second)).toBe('second');
    await expectFirstThenSecond(service, first.contextId, 'alice');
  });

  it('shows a tool call and its result as data parts', async () => {
    const task = await send(client, '/tool clock {}');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const [call, result] = historyData(task);
    expect(call).toMatchObject({ tool_call: { name: 'clock', arguments: {}, step: 1 } });
    expect(result).toMatchObject({ tool_result: { name: 'clock', is_error: false } });
    expect(artifactText(task).length).toBeGreaterThan(0);
  });

  it('fails a failed reply, saying why', async () => {
    const task = await send(client, '/fail');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const why = task.status?.message?.parts[0].content;
    expect(why?.$case === 'text' && why.value.length).toBeGreaterThan(0);
  });

  it('cancels a live task: it ends canceled with part of its text', async () => {
    const words = Array.from({ length: 40 }, (_, index) => `w${index}`).join(' ');
    const submitted = asTask(
      await client.sendMessage({
        tenant: '',
        message: userMessage(`/say ${words}\n/sleep 200`),
        configuration: {
          acceptedOutputModes: [],
          taskPushNotificationConfig: undefined,
          historyLength: undefined,
          returnImmediately: true,
        },
        ...asAlice,
      }),
    );
    // Answered at once, as the task is then: still queued, or already taken by a worker on a fast one.
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(submitted.status?.state);
    // Cancelled once it runs: its first chunk is out.
    for await (const event of client.resubscribeTask({ tenant: '', id: submitted.id })) {
      if (event.payload?.$case === 'artifactUpdate') break;
    }
    const cancelled = await client.cancelTask({ tenant: '', id: submitted.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(artifactText(cancelled).length).toBeLessThan(words.length);
    await expect(
      client.cancelTask({ tenant: '', id: submitted.id, metadata: undefined }),
    ).rejects.toBeInstanceOf(TaskNotCancelableError);
  });
});

describe('approvals (CONTRACTS §19)', () => {
  it('stops at input-required; a message in the task approves the call and the task completes', async () => {
    const careful = await a2aClient(gateway.url!, carefulAgentId, org.key);
    const waiting = await send(careful, '/tool clock {}');
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [prompt, request] = waiting.status!.message!.parts.map((part) => part.content);
    expect(prompt).toEqual({ $case: 'text', value: 'Allow clock with {}?' });
    expect(request).toMatchObject({
      $case: 'data',
      value: { approval_requests: [{ name: 'clock', arguments: {} }] },
    });
    const done = await send(careful, 'approve', { taskId: waiting.id, contextId: waiting.contextId });
    expect(done.id).toBe(waiting.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(historyData(done)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ approval_decision: expect.objectContaining({ decision: 'approve' }) }),
        expect.objectContaining({ tool_result: expect.objectContaining({ name: 'clock', is_error: false }) }),
      ]),
    );
  });

  it('streams the continuation after a denial given as a data part', async () => {
    const careful = await a2aClient(gateway.url!, carefulAgentId, org.key);
    const first = await collect(
      careful.sendMessageStream({
        tenant: '',
        configuration: undefined,
        message: userMessage('/tool clock {}'),
        ...asAlice,
      }),
    );
    const last = first[first.length - 1].payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    const task = first[0].payload?.$case === 'task' ? first[0].payload.value : null;
    const answer = userMessage('', {
      taskId: task!.id,
      contextId: task!.contextId,
      parts: [
        { ...textPart(''), content: { $case: 'data', value: { decision: 'deny', reason: 'not now' } } },
      ],
    });
    const rest = await collect(
      careful.sendMessageStream({ tenant: '', configuration: undefined, message: answer, ...asAlice }),
    );
    // Only what came after the approval request: the decision first, the end last.
    expect(rest[0].payload?.$case).toBe('statusUpdate');
    const end = rest[rest.length - 1].payload;
    expect(end?.$case === 'statusUpdate' && end.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const stored = await careful.getTask({ tenant: '', id: task!.id, historyLength: undefined });
    expect(historyData(stored)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ approval_decision: expect.objectContaining({ decision: 'deny' }) }),
      ]),
    );
  });
});

describe('organizations and end users', () => {
  it("refuses another organization's agent and task", async () => {
    const mine = await send(client, '/say mine');
    const other = await createOrg(world.environment.env);
    // Their key reads no card of our agent...
    await expect(a2aClient(gateway.url!, agentId, other.key)).rejects.toThrow(/Agent Card/);
    // ...nor our task, through an agent of their own...
    const theirAgent = (await createAgent(world.environment.env, other.org)).id;
    const stranger = await a2aClient(gateway.url!, theirAgent, other.key);
    await expect(
      stranger.getTask({ tenant: '', id: mine.id, historyLength: undefined }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    // ...and sends nothing to our agent's endpoint.
    const direct = await fetch(`${gateway.url}/a2a/agents/${agentId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] }, ...asAlice },
      }),
    });
    expect(direct.status).toBe(404);
    expect(await direct.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'Agent not found' },
    });
  });

  it('scopes an end-user token to its user: its threads, and no one else', async () => {
    const minted = await service.post('/end-user-tokens', { user_id: 'carol' });
    const carol = await a2aClient(gateway.url!, agentId, minted.body.token as string);
    const task = await send(carol, '/say for carol', {}, { metadata: {} } as typeof asAlice);
    expect(artifactText(task)).toBe('for carol');
    expect((await service.get(`/chat/${task.contextId}?user_id=carol`)).status).toBe(200);
    expect((await service.get(`/chat/${task.contextId}?user_id=alice`)).status).toBe(404);
    // Another user named with the token: refused; alice's task: unknown to carol.
    await expect(send(carol, 'hi')).rejects.toThrow(/differs from the end user of the token/);
    const alices = await send(client, '/say for alice');
    await expect(
      carol.getTask({ tenant: '', id: alices.id, historyLength: undefined }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(
      send(carol, '/say sneaky', { contextId: alices.contextId }, { metadata: {} } as typeof asAlice),
    ).rejects.toThrow(/not found/i);
  });
});

describe('the guide', () => {
  it('runs the A2A example as written, against this gateway', async () => {
    const lines = await runSnippet(guideSnippet('### Other agents: A2A', gateway.url!), {
      PARLEY_KEY: org.key,
      PARLEY_AGENT: agentId,
    });
    expect(lines[0]).toMatch(/^TASK_STATE_COMPLETED \S/);
    expect(lines[lines.length - 1]).toBe('TASK_STATE_COMPLETED');
    expect(lines.length).toBeGreaterThanOrEqual(3);
  });
});
