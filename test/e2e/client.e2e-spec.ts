import {
  Message,
  ParleyApiError,
  ParleyClient,
  PostMessage,
  ReplyEvent,
  StartChat,
  Thread,
  ThreadSummary,
  UpdateThread,
} from '@app/client';
import {
  MessageResponse,
  PostMessageDto,
  StartChatDto,
  ThreadResponse,
  ThreadSummaryResponse,
  UpdateThreadDto,
} from '@app/contracts';
import { RunEvent } from '@app/run-events';
import { useDeployment } from '../support/deployment';

/** The client library against a real gateway, for the six calls that need no worker. */

/** True only when both types are the same: the client's mirror of the wire shapes must not drift. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type WithoutCompleted<E> = Exclude<E, { type: 'message.completed' }>;
const shapesMatch: [
  Same<Thread, ThreadResponse>,
  Same<ThreadSummary, ThreadSummaryResponse>,
  Same<Message, MessageResponse>,
  Same<StartChat, StartChatDto>,
  Same<PostMessage, PostMessageDto>,
  Same<UpdateThread, UpdateThreadDto>,
  Same<WithoutCompleted<ReplyEvent>, WithoutCompleted<RunEvent>>,
] = [true, true, true, true, true, true, true];

const deployment = useDeployment({ agent: true });
let parley: ParleyClient;

beforeAll(() => {
  parley = new ParleyClient({ baseUrl: `${deployment.url}/`, token: deployment.org.key });
});

/** The error a failing call throws. */
async function failure(call: Promise<unknown>): Promise<ParleyApiError> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ParleyApiError);
  return error as ParleyApiError;
}

it('keeps its wire types identical to the service ones', () => {
  expect(shapesMatch).toEqual([true, true, true, true, true, true, true]);
});

it('starts a thread, follows up, lists, gets, updates and archives it', async () => {
  const thread = await parley.startThread({
    name: 'Client thread',
    message: { content: 'Hello from the client' },
    options: { agent_id: deployment.agentId, user_id: 'carol', max_steps: 4 },
  });
  expect(thread).toMatchObject({ name: 'Client thread', live: true, starred: false });
  expect(thread.messages.map((message) => [message.role, message.status])).toEqual([
    ['user', 'success'],
    ['assistant', 'pending'],
  ]);

  const reply = await parley.postMessage(thread.id, {
    message: { content: 'A follow-up' },
    options: { user_id: 'carol' },
  });
  expect(reply).toMatchObject({ thread_id: thread.id, role: 'assistant', status: 'pending', live: true });

  const second = await parley.startThread({
    message: { content: 'Another one' },
    options: { agent_id: deployment.agentId, user_id: 'carol' },
  });
  const listed = await parley.listThreads({ userId: 'carol', limit: 10, agentIds: [deployment.agentId] });
  expect(listed.map((summary) => summary.id)).toEqual([second.id, thread.id]);
  expect((await parley.listThreads({ userId: 'carol', limit: 1 })).map((summary) => summary.id)).toEqual([
    second.id,
  ]);

  const full = await parley.getThread(thread.id, { userId: 'carol' });
  expect(full.messages.map((message) => message.id)).toEqual([
    thread.messages[0].id,
    thread.messages[1].id,
    expect.any(String),
    reply.id,
  ]);

  const updated = await parley.updateThread(
    thread.id,
    { name: 'Renamed', starred: true },
    { userId: 'carol' },
  );
  expect(updated).toEqual({
    id: thread.id,
    name: 'Renamed',
    created_at: thread.created_at,
    live: true,
    agent: { id: deployment.agent.id, name: deployment.agent.name },
    starred: true,
  });

  await expect(parley.archiveThread(thread.id, { userId: 'carol' })).resolves.toBeUndefined();
  const gone = await failure(parley.getThread(thread.id));
  expect(gone.status).toBe(404);
  expect(gone.body).toEqual({ detail: 'Thread not found' });
  expect((await parley.listThreads({ userId: 'carol' })).map((summary) => summary.id)).toEqual([second.id]);
});

it('streams the single line of a user message', async () => {
  const thread = await parley.startThread({
    message: { content: 'Stream me' },
    options: { agent_id: deployment.agentId, user_id: 'dave' },
  });
  const lines: ReplyEvent[] = [];
  for await (const line of parley.streamReply(thread.messages[0].id)) lines.push(line);
  expect(lines).toEqual([{ seq: 0, type: 'message.completed', message: thread.messages[0] }]);
});

it('throws ParleyApiError with the status and body of a refusal', async () => {
  const invalid = await failure(
    parley.startThread({
      message: { content: 'x'.repeat(30001) },
      options: { agent_id: deployment.agentId, user_id: 'u' },
    }),
  );
  expect(invalid.status).toBe(422);
  expect((invalid.body as { detail: { loc: unknown }[] }).detail[0].loc).toEqual([
    'body',
    'message',
    'content',
  ]);

  const foreign = await failure(
    parley.startThread({
      message: { content: 'x' },
      options: { agent_id: crypto.randomUUID(), user_id: 'u' },
    }),
  );
  expect(foreign.status).toBe(404);
  expect(foreign.message).toContain('Agent not found');

  const unauthenticated = new ParleyClient({ baseUrl: deployment.url, token: 'sk-svc-wrong' });
  expect((await failure(unauthenticated.listThreads({ userId: 'u' }))).status).toBe(401);
});
