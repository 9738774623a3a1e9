import { randomUUID } from 'node:crypto';
import { DefaultChatTransport, UIMessage, UIMessageChunk } from 'ai';
import { useDeployment } from '../support/deployment';
import { FakeOpenAI, RecordedRequest } from '../support/fake-openai';
import { queryDatabase } from '../support/test-environment';
import { until } from './stream.support';
import { startThread } from './replies.support';

/**
 * Regenerate, edit and branches (CONTRACTS §19) on a real gateway and worker: a thread's messages form a tree,
 * every answer shows the active branch, a new reply's run sees only its own branch (what the model is sent is
 * read from a fake vendor), a kept message's tool step never runs again, and a live reply is refused (409)
 * unless interrupted.
 */
const OPENAI_KEY = 'sk-openai-branches-1234';
const USER = 'brancher';
const SLOW_REPLY = `/sleep 100\n/say ${'word '.repeat(60)}`; // about 6 s

/** An agent on the fake vendor: what each run sends the model is recorded. */
let vendorAgent: string;
/** An agent on the builtin model (CONTRACTS §6). */
let builtinAgent: string;
const openai = new FakeOpenAI(OPENAI_KEY);

beforeAll(() => openai.start());
const deployment = useDeployment({
  workers: 1,
  workerEnv: () => ({ WORKER_HEALTH_PORT: '0', ...openai.workerEnv() }),
});

beforeAll(async () => {
  [vendorAgent, builtinAgent] = await Promise.all([
    deployment.createAgent(['--model', 'openai:gpt-branches']).then((agent) => agent.id),
    deployment.createAgent().then((agent) => agent.id),
  ]);
});

afterAll(() => openai.close());

const client = () => deployment.client();

interface Shown {
  id: string;
  role: string;
  content: string;
  status: string;
  live: boolean;
  events: { type: string; name?: string }[] | null;
}

const start = (agentId: string, content: string) => startThread(client(), agentId, USER, content);

async function followUp(threadId: string, content: string): Promise<string> {
  const response = await client().post(`/chat/${threadId}`, {
    message: { content },
    options: { user_id: USER },
  });
  expect(response.status).toBe(200);
  return response.body.id;
}

/** Waits until the reply is no longer live. */
async function settled(replyId: string): Promise<void> {
  await until(async () => {
    const [row] = await queryDatabase<{ live: boolean }>(
      deployment.environment.databaseUrl,
      'SELECT live FROM messages WHERE id = $1',
      [replyId],
    );
    return row.live === false;
  }, 30000);
}

async function shown(threadId: string): Promise<Shown[]> {
  const response = await client().get(`/chat/${threadId}?user_id=${USER}`);
  expect(response.status).toBe(200);
  return response.body.messages;
}

async function branches(threadId: string) {
  const response = await client().get(`/chat/${threadId}/branches?user_id=${USER}`);
  expect(response.status).toBe(200);
  return response.body as { leaf_message_id: string; fork_message_id: string | null; active: boolean }[];
}

async function toolCallsOf(threadId: string): Promise<{ message_id: string; name: string }[]> {
  return queryDatabase(
    deployment.environment.databaseUrl,
    `SELECT c.message_id, c.name FROM tool_calls c JOIN messages m ON m.id = c.message_id
     WHERE m.thread_id = $1 ORDER BY m.position, c.step`,
    [threadId],
  );
}

/** The conversation each model request after the `from`-th carried, as text. */
const promptsSince = (from: number): string[] =>
  openai.requests.slice(from).map((request: RecordedRequest) => JSON.stringify(request.body.messages));

/** A thread of the vendor agent whose first reply called `clock` and whose second answered `question`, both ended. */
async function threadOfTwoReplies(question: string) {
  const { threadId, replyId: first } = await start(vendorAgent, 'call clock {}');
  await settled(first);
  const second = await followUp(threadId, question);
  await settled(second);
  return { threadId, first, second };
}

describe('regenerate', () => {
  it('answers the same user message again, keeps the old reply as a branch and runs no kept tool again', async () => {
    const { threadId, first, second } = await threadOfTwoReplies('which day is it');
    expect(await toolCallsOf(threadId)).toEqual([{ message_id: first, name: 'clock' }]);
    const before = await shown(threadId);
    const question = before[2];

    const sent = openai.requests.length;
    const regenerated = await client().post(`/chat/${threadId}/regenerate`, { options: { user_id: USER } });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body).toMatchObject({ role: 'assistant', status: 'pending', live: true });
    const third = regenerated.body.id as string;
    expect(third).not.toBe(second);
    await settled(third);

    // The thread shows the new branch, exactly as a thread that never branched: the kept messages unchanged.
    const after = await shown(threadId);
    expect(after.map((message) => message.id)).toEqual([before[0].id, first, question.id, third]);
    expect(after.slice(0, 3)).toEqual(before.slice(0, 3));
    expect(after[3]).toMatchObject({ status: 'success', content: 'Vendor says: which day is it' });
    expect(after[3].events![0]).toMatchObject({
      type: 'message.started',
      message_id: third,
      thread_id: threadId,
    });
    expect(after[3].events!.some((event) => event.type === 'tool.call')).toBe(false);
    // The kept reply's clock call is the thread's only one: regenerating ran no kept step again.
    expect(await toolCallsOf(threadId)).toEqual([{ message_id: first, name: 'clock' }]);
    expect(after[1].events!.filter((event) => event.type === 'tool.call')).toHaveLength(1);

    // Its run saw its branch up to its user message: the first exchange and the question, not the replaced reply.
    const prompts = promptsSince(sent);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('which day is it');
    expect(prompts[0]).toContain('call clock');
    expect(prompts[0]).not.toContain('Vendor says: which day is it');

    expect(await branches(threadId)).toEqual([
      {
        leaf_message_id: second,
        fork_message_id: question.id,
        created_at: expect.any(String),
        active: false,
      },
      { leaf_message_id: third, fork_message_id: question.id, created_at: expect.any(String), active: true },
    ]);
  });

  it('switches branches, and a follow-up continues the branch shown', async () => {
    const { threadId, replyId: first } = await start(vendorAgent, 'hello there');
    await settled(first);
    const regenerated = await client().post(`/chat/${threadId}/regenerate`, {
      message_id: first,
      options: { user_id: USER },
    });
    expect(regenerated.status).toBe(200);
    const second = regenerated.body.id as string;
    await settled(second);
    const [question] = await shown(threadId);

    const switched = await client().put(`/chat/${threadId}/branches/active?user_id=${USER}`, {
      leaf_message_id: first,
    });
    expect(switched.status).toBe(200);
    expect(switched.body.messages.map((message: Shown) => message.id)).toEqual([question.id, first]);
    expect((await shown(threadId)).map((message) => message.id)).toEqual([question.id, first]);
    expect((await branches(threadId)).map((branch) => [branch.leaf_message_id, branch.active])).toEqual([
      [first, true],
      [second, false],
    ]);

    const sent = openai.requests.length;
    const next = await followUp(threadId, 'and then');
    await settled(next);
    const thread = await shown(threadId);
    expect(thread.map((message) => message.id)).toEqual([question.id, first, thread[2].id, next]);
    expect(thread[2]).toMatchObject({ role: 'user', content: 'and then' });
    const prompts = promptsSince(sent);
    expect(prompts).toHaveLength(1);
    expect(prompts[0].split('Vendor says: hello there')).toHaveLength(2);
    expect((await branches(threadId)).map((branch) => [branch.leaf_message_id, branch.active])).toEqual([
      [second, false],
      [next, true],
    ]);

    // A message followed by another is no leaf; a message of another thread is not found.
    const inner = await client().put(`/chat/${threadId}/branches/active?user_id=${USER}`, {
      leaf_message_id: first,
    });
    expect(inner.status).toBe(422);
    expect(inner.body.detail[0]).toMatchObject({ loc: ['body', 'leaf_message_id'], type: 'value_error' });
    const unknown = await client().put(`/chat/${threadId}/branches/active?user_id=${USER}`, {
      leaf_message_id: randomUUID(),
    });
    expect(unknown.status).toBe(404);
  });
});

describe('regenerate and edit retried with an Idempotency-Key', () => {
  it('store one new reply each, and answer a retry with the first answer', async () => {
    const { threadId, replyId } = await start(builtinAgent, 'hello');
    await settled(replyId);
    const [question] = await shown(threadId);

    const regenerate = () =>
      client().post(
        `/chat/${threadId}/regenerate?user_id=${USER}`,
        { options: { max_steps: 3 } },
        { 'idempotency-key': `regenerate-${threadId}` },
      );
    const first = await regenerate();
    const retry = await regenerate();
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    await settled(first.body.id);
    expect(await branches(threadId)).toHaveLength(2);

    const edit = (content: string) =>
      client().post(
        `/chat/${threadId}/edit?user_id=${USER}`,
        { message_id: question.id, message: { content } },
        { 'idempotency-key': `edit-${threadId}` },
      );
    const edited = await edit('hello again');
    const editRetry = await edit('hello again');
    expect(edited.status).toBe(200);
    expect(editRetry.headers.get('idempotent-replayed')).toBe('true');
    expect(editRetry.body).toEqual(edited.body);
    expect((await edit('another text')).status).toBe(422);
    await settled(edited.body.messages[1].id);
    expect(await branches(threadId)).toHaveLength(3);
  });
});

describe('edit', () => {
  it('puts a new user message in the place of one, answers the thread on the new branch', async () => {
    const { threadId, first, second } = await threadOfTwoReplies('original question');
    const [opening, , edited] = await shown(threadId);

    const sent = openai.requests.length;
    const response = await client().post(`/chat/${threadId}/edit`, {
      message_id: edited.id,
      message: { content: 'edited question' },
      options: { user_id: USER },
    });
    expect(response.status).toBe(200);
    const messages = response.body.messages as Shown[];
    expect(messages.map((message) => message.id).slice(0, 2)).toEqual([opening.id, first]);
    expect(messages[2]).toMatchObject({ role: 'user', content: 'edited question', status: 'success' });
    expect(messages[3]).toMatchObject({ role: 'assistant', status: 'pending', live: true });
    expect(response.body.live).toBe(true);
    await settled(messages[3].id);

    const thread = await shown(threadId);
    expect(thread[3]).toMatchObject({ status: 'success', content: 'Vendor says: edited question' });
    const prompts = promptsSince(sent);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('edited question');
    expect(prompts[0]).not.toContain('original question');
    expect(await toolCallsOf(threadId)).toEqual([{ message_id: first, name: 'clock' }]);
    expect(await branches(threadId)).toEqual([
      { leaf_message_id: second, fork_message_id: first, created_at: expect.any(String), active: false },
      {
        leaf_message_id: messages[3].id,
        fork_message_id: first,
        created_at: expect.any(String),
        active: true,
      },
    ]);

    // Editing the first message forks at the start of the thread.
    const again = await client().post(`/chat/${threadId}/edit?user_id=${USER}`, {
      message_id: opening.id,
      message: { content: 'a new start' },
    });
    expect(again.status).toBe(200);
    expect(again.body.messages.map((message: Shown) => message.content)[0]).toBe('a new start');
    expect(again.body.messages).toHaveLength(2);
    await settled(again.body.messages[1].id);
    const forks = await branches(threadId);
    expect(forks).toHaveLength(3);
    expect(forks[2]).toMatchObject({ leaf_message_id: again.body.messages[1].id, fork_message_id: null });
  });

  it('answers 422 for a message of the wrong role and a missing message, 404 for an unknown one', async () => {
    const { threadId, replyId } = await start(builtinAgent, 'hello');
    await settled(replyId);
    const [question] = await shown(threadId);
    const regenerateUser = await client().post(`/chat/${threadId}/regenerate?user_id=${USER}`, {
      message_id: question.id,
    });
    expect(regenerateUser.status).toBe(422);
    expect(regenerateUser.body.detail[0]).toMatchObject({ loc: ['body', 'message_id'], type: 'value_error' });
    const editReply = await client().post(`/chat/${threadId}/edit?user_id=${USER}`, {
      message_id: replyId,
      message: { content: 'x' },
    });
    expect(editReply.status).toBe(422);
    expect(editReply.body.detail[0].loc).toEqual(['body', 'message_id']);
    const noMessage = await client().post(`/chat/${threadId}/edit?user_id=${USER}`, {
      message_id: question.id,
    });
    expect(noMessage.status).toBe(422);
    expect(noMessage.body.detail[0]).toMatchObject({ loc: ['body', 'message'], type: 'missing' });
    const notUuid = await client().post(`/chat/${threadId}/regenerate?user_id=${USER}`, { message_id: 'x' });
    expect(notUuid.status).toBe(422);
    expect(notUuid.body.detail[0].loc).toEqual(['body', 'message_id']);
    const unknown = await client().post(`/chat/${threadId}/regenerate?user_id=${USER}`, {
      message_id: randomUUID(),
    });
    expect(unknown.status).toBe(404);
    // Nothing was stored by the refused calls.
    expect(await branches(threadId)).toHaveLength(1);
  });
});

describe('with a live reply', () => {
  it('answers 409 unless interrupted; interrupt cancels the live reply and runs the new one', async () => {
    const { threadId, replyId } = await start(builtinAgent, SLOW_REPLY);
    const [question] = await shown(threadId);
    const conflict = { status: 409, body: { detail: 'Thread has a live reply' } };
    const regenerate = await client().post(`/chat/${threadId}/regenerate?user_id=${USER}`, {});
    expect({ status: regenerate.status, body: regenerate.body }).toEqual(conflict);
    const rejected = await client().post(`/chat/${threadId}/regenerate?user_id=${USER}`, {
      options: { multitask_strategy: 'reject' },
    });
    expect(rejected.status).toBe(409);
    const edit = await client().post(`/chat/${threadId}/edit?user_id=${USER}`, {
      message_id: question.id,
      message: { content: 'never mind' },
    });
    expect({ status: edit.status, body: edit.body }).toEqual(conflict);
    const switched = await client().put(`/chat/${threadId}/branches/active?user_id=${USER}`, {
      leaf_message_id: replyId,
    });
    expect({ status: switched.status, body: switched.body }).toEqual(conflict);
    expect(await branches(threadId)).toHaveLength(1);

    const interrupted = await client().post(`/chat/${threadId}/edit?user_id=${USER}`, {
      message_id: question.id,
      message: { content: '/say fresh answer' },
      options: { multitask_strategy: 'interrupt' },
    });
    expect(interrupted.status).toBe(200);
    const fresh = interrupted.body.messages[1].id as string;
    await settled(fresh);
    await settled(replyId);
    const [old] = await queryDatabase<{ status: string }>(
      deployment.environment.databaseUrl,
      'SELECT status FROM messages WHERE id = $1',
      [replyId],
    );
    expect(old.status).toBe('cancelled');
    const thread = await shown(threadId);
    expect(thread.map((message) => message.content)).toEqual(['/say fresh answer', 'fresh answer']);
    expect((await branches(threadId)).map((branch) => branch.leaf_message_id)).toEqual([replyId, fresh]);
  });
});

describe('end-user tokens', () => {
  it('reach their own threads only', async () => {
    const mine = await start(builtinAgent, 'mine');
    await settled(mine.replyId);
    const other = await client().post('/chat', {
      message: { content: 'theirs' },
      options: { agent_id: builtinAgent, user_id: 'someone-else' },
    });
    await settled(other.body.messages[1].id);
    const minted = await client().post('/end-user-tokens', { user_id: USER });
    const token = deployment.client(minted.body.token);

    expect((await token.get(`/chat/${mine.threadId}/branches`)).status).toBe(200);
    const regenerated = await token.post(`/chat/${mine.threadId}/regenerate`, {});
    expect(regenerated.status).toBe(200);
    await settled(regenerated.body.id);

    const theirs = other.body.id as string;
    expect((await token.get(`/chat/${theirs}/branches`)).status).toBe(404);
    expect((await token.post(`/chat/${theirs}/regenerate`, {})).status).toBe(404);
    expect(
      (
        await token.post(`/chat/${theirs}/edit`, {
          message_id: other.body.messages[0].id,
          message: { content: 'x' },
        })
      ).status,
    ).toBe(404);
    expect(
      (await token.put(`/chat/${theirs}/branches/active`, { leaf_message_id: other.body.messages[1].id }))
        .status,
    ).toBe(404);
    // A service key naming another end user sees the same 404.
    expect((await client().get(`/chat/${theirs}/branches?user_id=${USER}`)).status).toBe(404);
    expect((await client().get(`/chat/${theirs}/branches?user_id=someone-else`)).body).toHaveLength(1);
  });
});

describe('the AI SDK protocol', () => {
  it('maps trigger regenerate-message onto regenerate', async () => {
    const minted = await client().post('/end-user-tokens', { user_id: USER });
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${deployment.url}/ai-sdk/chat`,
      headers: { authorization: `Bearer ${minted.body.token}` },
      body: { agent_id: builtinAgent },
    });
    const chatId = `chat-${randomUUID()}`;
    const question: UIMessage = {
      id: randomUUID(),
      role: 'user',
      parts: [{ type: 'text', text: 'hi there' }],
    };
    const chunksOf = async (stream: ReadableStream<UIMessageChunk>) => {
      const chunks: UIMessageChunk[] = [];
      for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
      return chunks;
    };
    const startOf = (chunks: UIMessageChunk[]) =>
      (chunks.find((chunk) => chunk.type === 'start') as { messageId: string }).messageId;

    const first = startOf(
      await chunksOf(
        await transport.sendMessages({
          chatId,
          messages: [question],
          trigger: 'submit-message',
          messageId: undefined,
          abortSignal: undefined,
        }),
      ),
    );
    // useChat's regenerate(): the reply is dropped from the messages and named by messageId.
    const chunks = await chunksOf(
      await transport.sendMessages({
        chatId,
        messages: [question],
        trigger: 'regenerate-message',
        messageId: first,
        abortSignal: undefined,
      }),
    );
    const second = startOf(chunks);
    expect(second).not.toBe(first);
    expect(chunks[chunks.length - 1].type).toBe('finish');

    const [summary] = (await client().get(`/chat?user_id=${USER}&limit=1`)).body as { id: string }[];
    const thread = await shown(summary.id);
    expect(thread.map((message) => message.id)).toEqual([thread[0].id, second]);
    expect((await branches(summary.id)).map((branch) => [branch.leaf_message_id, branch.active])).toEqual([
      [first, false],
      [second, true],
    ]);

    // regenerate-message of a chat never started is 404, as any unknown chat.
    const unknown = await fetch(`${deployment.url}/ai-sdk/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${minted.body.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'never-started', messages: [question], trigger: 'regenerate-message' }),
    });
    expect(unknown.status).toBe(404);
  });
});
