import { Logger } from '@nestjs/common';
import {
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  PostMessageDto,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { IdempotentWrite, ThreadEntity } from '@app/persistence';
import { PostMessage, PostMessageInput } from './post-message.use-case';
import { caller, chatWorld } from './testing/chat-world';
import { AGENT_ID, MemoryChat } from './testing/memory-chat';

/** A thread `t1` whose first exchange ended: `u1`, answered by `r1`; with `values` of its own. */
const ended =
  (values: Partial<ThreadEntity> = {}) =>
  (chat: MemoryChat) =>
    chat.seedThread(
      't1',
      [
        ['u1', 'user', 'success', null],
        ['r1', 'assistant', 'success', 'u1'],
      ],
      values,
    );

/** PostMessage over the threads `seed` stores. */
const world = (seed: (chat: MemoryChat) => void = ended()) =>
  chatWorld(
    seed,
    (chat, settings) =>
      new PostMessage(
        settings,
        chat.versionRepository,
        chat.messageRepository,
        chat.attachments,
        chat.replies,
      ),
  );

const post = (options: PostMessageDto['options'] = {}, content = 'And then?'): PostMessageInput => ({
  threadId: 't1',
  body: { message: { content }, options } as PostMessageDto,
});

describe('PostMessage', () => {
  it('stores the message after the branch the thread shows, with a pending reply, and enqueues it after the commit', async () => {
    const { chat, useCase } = world();

    const reply = await useCase.execute(caller, post({ max_steps: 3 }));

    expect(chat.timeline).toEqual(['begin', 'commit', `enqueue ${reply.id}`]);
    const [question] = chat.activeBranch('t1').slice(-2);
    expect(chat.activeBranch('t1')).toEqual(['u1', 'r1', question, reply.id]);
    expect(chat.message(question)).toMatchObject({ role: 'user', content: 'And then?', parentId: 'r1' });
    expect(chat.message(reply.id)).toMatchObject({ replyToId: question, maxSteps: 3 });
    expect(reply).toMatchObject({
      thread_id: 't1',
      role: 'assistant',
      status: 'pending',
      live: true,
      agent: { id: AGENT_ID, name: 'helper' },
    });
    expect(chat.enqueued).toEqual([
      { job: { messageId: reply.id, threadId: 't1', requestId: 'req-1' }, backlog: 0 },
    ]);
  });

  it("takes the server's default steps when the request names none", async () => {
    const { chat, useCase } = world();
    const reply = await useCase.execute(caller, post());
    expect(chat.message(reply.id)?.maxSteps).toBe(7);
  });

  it("enqueues the reply at its place in the organization's backlog: behind the live replies stored before it", async () => {
    const { chat, useCase } = world((seeded) => {
      seeded.seedThread('t0', [
        ['u0', 'user', 'success', null],
        ['r0', 'assistant', 'running', 'u0'],
      ]);
      seeded.seedThread('t1', [
        ['u1', 'user', 'success', null],
        ['r1', 'assistant', 'success', 'u1'],
      ]);
    });
    await useCase.execute(caller, post());
    expect(chat.enqueued.map((enqueued) => enqueued.backlog)).toEqual([1]);
  });

  describe('while the thread has a live reply', () => {
    /** `r1` runs, `r2` waits behind it. */
    const busy = (chat: MemoryChat) =>
      chat.seedThread('t1', [
        ['u1', 'user', 'success', null],
        ['r1', 'assistant', 'running', 'u1'],
        ['u2', 'user', 'success', 'r1'],
        ['r2', 'assistant', 'pending', 'u2'],
      ]);

    it('queues the new reply behind them by default, touching neither', async () => {
      const { chat, useCase } = world(busy);

      const reply = await useCase.execute(caller, post());

      expect(chat.message('r1')).toMatchObject({ status: 'running', live: true });
      expect(chat.message('r2')).toMatchObject({ status: 'pending', live: true });
      expect(chat.activeBranch('t1').slice(0, 4)).toEqual(['u1', 'r1', 'u2', 'r2']);
      expect(chat.timeline).toEqual(['begin', 'commit', `enqueue ${reply.id}`]);
      expect(chat.cancelRequests).toEqual([]);
    });

    it('refuses with 409 under `reject`, storing and enqueueing nothing', async () => {
      const { chat, useCase } = world(busy);
      const before = chat.messages.length;

      await expect(useCase.execute(caller, post({ multitask_strategy: 'reject' }))).rejects.toThrow(
        new ConflictError('Thread has a live reply'),
      );

      expect(chat.messages).toHaveLength(before);
      expect(chat.timeline).toEqual(['begin', 'rollback']);
    });

    it('under `interrupt`, cancels the waiting reply in the transaction and stops the running one before enqueueing', async () => {
      const { chat, useCase } = world(busy);

      const reply = await useCase.execute(caller, post({ multitask_strategy: 'interrupt' }));

      // Never started: closed here as cancelled, and reported to webhooks in the same transaction.
      expect(chat.message('r2')).toMatchObject({ status: 'cancelled', live: false });
      expect(chat.webhookEvents).toEqual(['message.cancelled r2 cancelled']);
      // Running: its worker's to end, told after the commit, by its id so it can never stop the new reply.
      expect(chat.message('r1')).toMatchObject({ status: 'running', live: true });
      expect(chat.cancelRequests).toEqual([{ threadId: 't1', messageId: 'r1' }]);
      // The cancelled reply's stream gets its last lines from a worker: its job is enqueued again.
      expect(chat.timeline).toEqual([
        'begin',
        'commit',
        'requestCancel r1',
        'enqueueAgain r2',
        `enqueue ${reply.id}`,
      ]);
    });
  });

  it("refuses to change the thread's memory namespace (422), and accepts the one it has", async () => {
    const { chat, useCase } = world(ended({ memoryNamespace: 'team-a' }));

    const refused = useCase.execute(caller, post({ memory_namespace: 'team-b' }));
    await expect(refused).rejects.toBeInstanceOf(InvalidInputError);
    await expect(refused).rejects.toMatchObject({
      issues: [expect.objectContaining({ loc: ['body', 'options', 'memory_namespace'], input: 'team-b' })],
    });
    expect(chat.enqueued).toEqual([]);

    await expect(useCase.execute(caller, post({ memory_namespace: 'team-a' }))).resolves.toMatchObject({
      status: 'pending',
    });
  });

  it("refuses (403) an end user's token that may not use the thread's memory namespace, storing nothing", async () => {
    const { chat, useCase } = world(ended({ memoryNamespace: 'team-a' }));
    const endUser: Caller = {
      ...caller,
      endUser: { userId: 'alice', agentIds: null, memoryNamespaces: ['team-b'] },
    };

    await expect(useCase.execute(endUser, post())).rejects.toBeInstanceOf(ForbiddenError);

    expect(chat.messages).toHaveLength(2);
    expect(chat.enqueued).toEqual([]);
  });

  it("answers 404 for another user's thread, and for a call naming two different users", async () => {
    const { chat, useCase } = world();

    await expect(useCase.execute(caller, { ...post(), userId: 'bob' })).rejects.toThrow(
      new NotFoundError('Thread not found'),
    );
    await expect(useCase.execute(caller, { ...post({ user_id: 'bob' }), userId: 'alice' })).rejects.toThrow(
      new NotFoundError('Thread not found'),
    );

    expect(chat.messages).toHaveLength(2);
    expect(chat.enqueued).toEqual([]);
  });

  it("answers 404 when the thread's agent was archived: a new run needs a live agent", async () => {
    const { chat, useCase } = world();
    chat.agents[0].archivedAt = new Date();
    await expect(useCase.execute(caller, post())).rejects.toThrow(new NotFoundError('Agent not found'));
    expect(chat.messages).toHaveLength(2);
  });

  it('pins the agent version the request names, and refuses one the agent does not have (422) at its field', async () => {
    const { chat, useCase } = world();

    const pinned = await useCase.execute(caller, post({ agent_version: 2 }));
    expect(chat.message(pinned.id)?.agentVersion).toBe(2);

    const refused = useCase.execute(caller, {
      ...post({ agent_version: 9 }),
      agentVersionAt: ['body', 'model'],
    });
    await expect(refused).rejects.toMatchObject({
      issues: [expect.objectContaining({ loc: ['body', 'model'] })],
    });
  });

  it('records the answer of an idempotent request in the transaction that stores the reply', async () => {
    const { chat, useCase } = world();

    const reply = await useCase.execute(caller, post(), {} as IdempotentWrite);

    expect(chat.timeline).toEqual(['begin', 'recordAnswer in tx', 'commit', `enqueue ${reply.id}`]);
    expect(chat.answersRecorded).toEqual([reply]);
  });

  it('answers the stored reply when enqueueing fails, logging it: the sweep of pending replies enqueues it later', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const { chat, useCase } = world();
      chat.queueDown = true;

      const reply = await useCase.execute(caller, post());

      expect(chat.message(reply.id)).toMatchObject({ status: 'pending', live: true });
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ messageId: reply.id }),
        'reply stored but not enqueued; the pending-reply sweep will enqueue it',
      );
    } finally {
      logged.mockRestore();
    }
  });
});
