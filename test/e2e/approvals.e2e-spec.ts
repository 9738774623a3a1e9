import { useDeployment } from '../support/deployment';
import { FakeOpenAI } from '../support/fake-openai';
import { queryDatabase } from '../support/test-environment';
import { WebhookReceiver } from '../support/webhook-receiver';
import { MemoryChat, toolParts } from './ai-sdk-chat.support';
import { startThread, storedStatus } from './replies.support';
import { Line, numbered, OpenStream, until } from './stream.support';

/**
 * Approvals (CONTRACTS §19) on real processes: a call of a tool in the agent's `approval_required` leaves the
 * reply live with `requires_action` and its Question, the stream writes `approval.requested` and stays open,
 * and no worker slot is held (the worker runs only AGENT_RUN_CONCURRENCY=4 at once); a decision resumes it.
 */
const OPENAI_KEY = 'sk-openai-approvals-1234';
const USER = 'approver';

const openai = new FakeOpenAI(OPENAI_KEY);
/** The webhook payloads the organization's endpoint received. */
const receiver = new WebhookReceiver<{
  type: string;
  data: { id: string; status: string; questions: unknown };
}>();
const delivered = receiver.delivered;

beforeAll(() => Promise.all([openai.start(), receiver.listen()]));
const deployment = useDeployment({
  env: { STREAM_HEARTBEAT_MS: '300', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_SWEEP_INTERVAL_MS: '200' },
  workers: 1,
  workerEnv: () => ({ AGENT_RUN_CONCURRENCY: '4', ...openai.workerEnv() }),
});

afterAll(async () => {
  receiver.close();
  await openai.close();
});

const client = () => deployment.client();

async function createAgent(body: Record<string, unknown>): Promise<string> {
  const response = await client().post('/agents', { name: 'Careful', ...body });
  expect(response.status).toBe(200);
  return response.body.id as string;
}

const start = (agentId: string, content: string) => startThread(client(), agentId, USER, content);

const streamOf = (replyId: string) =>
  new OpenStream(`${deployment.url}/chat/messages/${replyId}/stream?user_id=${USER}`, deployment.org.key);

const decide = (replyId: string, body: Record<string, unknown>) =>
  client().post(`/chat/messages/${replyId}/approvals`, { user_id: USER, ...body });

async function toolCallsOf(replyId: string): Promise<{ name: string; output: unknown }[]> {
  return queryDatabase(
    deployment.environment.databaseUrl,
    'SELECT name, output FROM tool_calls WHERE message_id = $1 ORDER BY step, call_id',
    [replyId],
  );
}

const statusOf = (replyId: string) => storedStatus(deployment.environment.databaseUrl, replyId);

describe('approvals', () => {
  it('stores approval_required on the agent', async () => {
    const id = await createAgent({ approval_required: ['web', 'mcp:github', 'clock'] });
    expect((await client().get(`/agents/${id}`)).body.approval_required).toEqual([
      'web',
      'mcp:github',
      'clock',
    ]);
    const updated = await client().put(`/agents/${id}`, { approval_required: [] });
    expect(updated.body.approval_required).toEqual([]);
    const bad = await client().post('/agents', { name: 'x', approval_required: ['no spaces'] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'approval_required', 0]);
  });

  it('waits for a person with no slot held, then runs the approved tool once', async () => {
    const agentId = await createAgent({ approval_required: ['clock'] });
    const hook = await client().post('/webhooks', {
      url: receiver.url,
      events: ['message.requires_action'],
    });
    expect(hook.status).toBe(200);
    const { threadId, replyId } = await start(agentId, '/tool clock {}');
    const stream = streamOf(replyId);
    const requested = await stream.waitFor((line) => line.type === 'approval.requested');
    expect(requested).toMatchObject({ step: 1, name: 'clock', arguments: {} });
    // The stream stays open while it waits: heartbeats, no message.completed.
    await stream.waitFor((line) => line.type === 'heartbeat');
    expect(stream.lines.some((line) => line.type === 'message.completed')).toBe(false);

    const waiting = (await client().get(`/chat/${threadId}?user_id=${USER}`)).body.messages[1];
    expect(waiting).toMatchObject({
      status: 'requires_action',
      live: true,
      questions: [{ prompt: 'Allow clock with {}?', options: ['approve', 'deny'] }],
    });
    expect(await toolCallsOf(replyId)).toEqual([]);
    await until(() => delivered.some((event) => event.data.id === replyId));
    expect(delivered.find((event) => event.data.id === replyId)).toMatchObject({
      type: 'message.requires_action',
      data: { status: 'requires_action', questions: waiting.questions },
    });

    // Per-thread order: a follow-up waits behind the waiting reply (which is live).
    const followUp = await client().post(`/chat/${threadId}`, { message: { content: 'and then?' } });
    expect(followUp.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await statusOf(followUp.body.id)).toBe('pending');

    // Another end user: 404; a call that is not waiting: 409.
    const foreign = await client().post(`/chat/messages/${replyId}/approvals`, {
      call_id: requested.call_id,
      decision: 'approve',
      user_id: 'someone-else',
    });
    expect(foreign.status).toBe(404);
    expect((await decide(replyId, { call_id: 'nope', decision: 'approve' })).status).toBe(409);

    const decided = await decide(replyId, { call_id: requested.call_id, decision: 'approve' });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ id: replyId, status: 'running', questions: null });
    expect((await decide(replyId, { call_id: requested.call_id, decision: 'deny' })).status).toBe(409);

    const lines = numbered(await stream.all());
    expect(lines.map((line) => line.seq)).toEqual(lines.map((_, index) => index));
    expect(lines.map((line) => line.type)).toEqual([
      'message.started',
      'step.started',
      'tool.call',
      'approval.requested',
      'approval.decided',
      'tool.result',
      'step.started',
      ...lines.slice(7, -1).map(() => 'text.delta'),
      'message.completed',
    ]);
    expect(lines[4]).toMatchObject({ call_id: requested.call_id, decision: 'approve' });
    expect(lines[5]).toMatchObject({ is_error: false });
    const completed = lines.at(-1) as Line & { message: { status: string; events: Line[] } };
    expect(completed.message.status).toBe('success');
    expect(completed.message.events.map((event) => event.type)).toContain('approval.decided');
    expect((await toolCallsOf(replyId)).map((call) => call.name)).toEqual(['clock']);
    const next = numbered(await streamOf(followUp.body.id).all());
    expect((next.at(-1) as Line & { message: { status: string } }).message.status).toBe('success');
  });

  it('gives the model the denial instead of running the tool', async () => {
    const agentId = await createAgent({ approval_required: ['clock'] });
    const { replyId } = await start(agentId, '/tool clock {"zone":"UTC"}');
    const stream = streamOf(replyId);
    const requested = await stream.waitFor((line) => line.type === 'approval.requested');
    await until(async () => (await statusOf(replyId)) === 'requires_action');
    // The end user decides from the browser, with an end-user token (CONTRACTS §17); another user's token: 404.
    const tokenOf = async (userId: string) =>
      (await client().post('/end-user-tokens', { user_id: userId })).body.token as string;
    const body = { call_id: requested.call_id, decision: 'deny', reason: 'not now' };
    const path = `/chat/messages/${replyId}/approvals`;
    expect((await deployment.client(await tokenOf('someone-else')).post(path, body)).status).toBe(404);
    const decided = await deployment.client(await tokenOf(USER)).post(path, body);
    expect(decided.status).toBe(200);
    const lines = numbered(await stream.all());
    expect(lines.find((line) => line.type === 'approval.decided')).toMatchObject({ decision: 'deny' });
    const result = lines.find((line) => line.type === 'tool.result');
    expect(result).toMatchObject({ output: { denied: true, reason: 'not now' }, is_error: false });
    const completed = lines.at(-1) as Line & { message: { status: string; content: string } };
    expect(completed.message.status).toBe('success');
    expect(completed.message.content).toContain('denied');
  });

  it("takes the AI SDK's approval response (addToolApprovalResponse) as the decision", async () => {
    const agentId = await createAgent({ approval_required: ['clock'] });
    const minted = await client().post('/end-user-tokens', { user_id: USER });
    const headers = { authorization: `Bearer ${minted.body.token}`, 'content-type': 'application/json' };
    const chatId = `chat-${Date.now()}`;
    const question = { id: 'q1', role: 'user', parts: [{ type: 'text', text: '/tool clock {}' }] };
    // The first request's stream ends at the approval request, as streamText's does; the reply waits on.
    const first = await fetch(`${deployment.url}/ai-sdk/chat`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        id: chatId,
        messages: [question],
        trigger: 'submit-message',
        agent_id: agentId,
      }),
    });
    const text = await first.text();
    expect(text).toMatch(
      /"type":"tool-approval-request"[^\n]*\n\nid: \d+\ndata: \{"type":"finish-step"\}\n\nid: \d+\ndata: \{"type":"finish","finishReason":"tool-calls"\}\n\ndata: \[DONE\]\n\n$/,
    );
    const replyId = /"type":"start","messageId":"([^"]+)"/.exec(text)![1];
    const callId = /"type":"tool-approval-request","approvalId":"([^"]+)"/.exec(text)![1];
    await until(async () => (await statusOf(replyId)) === 'requires_action');

    // What useChat sends once the user answered: the waiting reply last, its tool part approval-responded.
    const answered = {
      id: replyId,
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        {
          type: 'dynamic-tool',
          toolName: 'clock',
          toolCallId: callId,
          state: 'approval-responded',
          input: {},
          approval: { id: callId, approved: true },
        },
      ],
    };
    const body = {
      id: chatId,
      messages: [question, answered],
      trigger: 'submit-message',
      messageId: replyId,
    };
    const second = await fetch(`${deployment.url}/ai-sdk/chat`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    expect(second.status).toBe(200);
    const frames = (await second.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; toolCallId?: string });
    // The continuation only: the client holds the reply up to the approval request.
    expect(frames.some((frame) => frame.type === 'start' || frame.type === 'tool-input-available')).toBe(
      false,
    );
    expect(frames[0]).toMatchObject({ type: 'tool-output-available', toolCallId: callId });
    expect(frames.at(-1)).toEqual({ type: 'finish' });
    expect(await statusOf(replyId)).toBe('success');
    expect((await toolCallsOf(replyId)).map((call) => call.name)).toEqual(['clock']);
    // Sent again, nothing waits any more.
    const again = await fetch(`${deployment.url}/ai-sdk/chat`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    expect(again.status).toBe(409);
  });

  it('ends the AI SDK stream only once every waiting call of the step has its approval request', async () => {
    const agentId = await createAgent({ model: 'openai:gpt-approvals', approval_required: ['clock'] });
    const minted = await client().post('/end-user-tokens', { user_id: USER });
    const response = await fetch(`${deployment.url}/ai-sdk/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${minted.body.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id: `chat-two-${Date.now()}`,
        messages: [
          {
            id: 'q',
            role: 'user',
            parts: [{ type: 'text', text: 'call clock {}\ncall clock {"again":true}' }],
          },
        ],
        trigger: 'submit-message',
        agent_id: agentId,
      }),
    });
    const text = await response.text();
    const types = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) =>
        line === 'data: [DONE]' ? '[DONE]' : (JSON.parse(line.slice(6)) as { type: string }).type,
      );
    expect(types.slice(-6)).toEqual([
      'tool-input-available',
      'tool-approval-request',
      'tool-approval-request',
      'finish-step',
      'finish',
      '[DONE]',
    ]);
    const replyId = /"type":"start","messageId":"([^"]+)"/.exec(text)![1];
    await until(async () => (await statusOf(replyId)) === 'requires_action');
    expect(await toolCallsOf(replyId)).toEqual([]);
  });

  it('has several calls of one step wait together', async () => {
    const agentId = await createAgent({ model: 'openai:gpt-approvals', approval_required: ['clock'] });
    const { replyId } = await start(agentId, 'call clock {}\ncall clock {"again":true}');
    const stream = streamOf(replyId);
    await until(() => stream.lines.filter((line) => line.type === 'approval.requested').length === 2, 20000);
    const [first, second] = stream.lines.filter((line) => line.type === 'approval.requested');
    await until(async () => (await statusOf(replyId)) === 'requires_action');
    const one = await decide(replyId, { call_id: second.call_id, decision: 'deny' });
    expect(one.body).toMatchObject({
      status: 'requires_action',
      questions: [{ prompt: 'Allow clock with {}?', options: ['approve', 'deny'] }],
    });
    expect(await toolCallsOf(replyId)).toEqual([]);
    const both = await decide(replyId, { call_id: first.call_id, decision: 'approve' });
    expect(both.body.status).toBe('running');
    const lines = numbered(await stream.all());
    const types = lines.map((line) => line.type);
    expect(types.slice(2, 8)).toEqual([
      'tool.call',
      'tool.call',
      'approval.requested',
      'approval.requested',
      'approval.decided',
      'approval.decided',
    ]);
    const results = lines.filter((line) => line.type === 'tool.result');
    expect(results.map((line) => line.is_error)).toEqual([false, false]);
    expect(results[1].output).toEqual({ denied: true, reason: null });
    expect((lines.at(-1) as Line & { message: { status: string } }).message.status).toBe('success');
  });

  it("runs a step's calls that need no person at once, so the AI SDK sends the answers on its own", async () => {
    const agentId = await createAgent({ model: 'openai:gpt-approvals', approval_required: ['clock'] });
    const minted = await client().post('/end-user-tokens', { user_id: USER });
    const chat = new MemoryChat(deployment.url, minted.body.token as string, agentId);
    // The call that waits comes first: the one that needs no person runs all the same before the step waits.
    await chat.sendMessage({ text: 'call clock {}\ncall company_documents {"query":"pricing"}' });
    expect(chat.error).toBeUndefined();
    const replyId = chat.lastMessage!.id;
    const [clock, documents] = toolParts(chat.lastMessage);
    expect(clock).toMatchObject({ toolName: 'clock', state: 'approval-requested' });
    expect(documents).toMatchObject({ toolName: 'company_documents', state: 'output-available' });
    expect(await statusOf(replyId)).toBe('requires_action');
    expect((await toolCallsOf(replyId)).map((call) => call.name)).toEqual(['company_documents']);

    await chat.addToolApprovalResponse({
      id: (clock as { approval: { id: string } }).approval.id,
      approved: true,
    });
    expect(chat.autoSend.at(-1)).toBe(true);
    await until(
      () => chat.status === 'ready' && toolParts(chat.lastMessage)[0]?.state === 'output-available',
      20000,
    );
    expect(await statusOf(replyId)).toBe('success');
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    // The reply's own lines: the result that needed no person before the request, the other after the decision.
    const lines = numbered(await streamOf(replyId).all()).filter(
      (line) => line.type.startsWith('tool.') || line.type.startsWith('approval.'),
    );
    expect(lines.map((line) => `${line.type} ${line.name ?? line.decision}`)).toEqual([
      'tool.call clock',
      'tool.call company_documents',
      'tool.result company_documents',
      'approval.requested clock',
      'approval.decided approve',
      'tool.result clock',
    ]);
  });

  it('closes a waiting reply like a pending one: interrupt and archive', async () => {
    const agentId = await createAgent({ approval_required: ['clock'] });
    const { threadId, replyId } = await start(agentId, '/tool clock {}');
    const stream = streamOf(replyId);
    await stream.waitFor((line) => line.type === 'approval.requested');
    await until(async () => (await statusOf(replyId)) === 'requires_action');
    // Per-thread order: a follow-up queued behind the waiting reply waits too.
    const queued = await client().post(`/chat/${threadId}`, { message: { content: 'after it' } });
    expect(queued.status).toBe(200);
    const interrupting = await client().post(`/chat/${threadId}`, {
      message: { content: 'never mind' },
      options: { multitask_strategy: 'interrupt' },
    });
    expect(interrupting.status).toBe(200);
    const lines = numbered(await stream.all());
    const completed = lines.at(-1) as Line & { message: { status: string; events: Line[] } };
    expect(completed.type).toBe('message.completed');
    expect(completed.message.status).toBe('cancelled');
    expect(completed.message.events.map((event) => event.type)).toContain('approval.requested');
    const next = numbered(await streamOf(interrupting.body.id).all());
    expect((next.at(-1) as Line & { message: { status: string } }).message.status).toBe('success');
    expect(await toolCallsOf(replyId)).toEqual([]);

    const other = await start(agentId, '/tool clock {}');
    const otherStream = streamOf(other.replyId);
    await otherStream.waitFor((line) => line.type === 'approval.requested');
    await until(async () => (await statusOf(other.replyId)) === 'requires_action');
    expect((await client().delete(`/chat/${other.threadId}?user_id=${USER}`)).status).toBe(204);
    const archived = numbered(await otherStream.all());
    expect((archived.at(-1) as Line & { message: { status: string } }).message.status).toBe('cancelled');
  });

  it('holds no worker slot while 50 replies wait: a 51st conversation is not delayed', async () => {
    const agentId = await createAgent({ approval_required: ['clock'] });
    const waiting: { threadId: string; replyId: string }[] = [];
    for (let index = 0; index < 50; index++) waiting.push(await start(agentId, '/tool clock {}'));
    await until(async () => {
      const [row] = await queryDatabase<{ n: number }>(
        deployment.environment.databaseUrl,
        `SELECT count(*)::int AS n FROM messages WHERE id = ANY($1) AND status = 'requires_action'`,
        [waiting.map((reply) => reply.replyId)],
      );
      return row.n === 50;
    }, 60000);
    const plain = await createAgent({});
    const startedAt = Date.now();
    const { replyId } = await start(plain, '/say hello there');
    const lines = numbered(await streamOf(replyId).all());
    expect((lines.at(-1) as Line & { message: { status: string } }).message.status).toBe('success');
    expect(Date.now() - startedAt).toBeLessThan(5000);
  }, 120000);
});
