import { ConflictError, InvalidInputError, NotFoundError, RegenerateReplyDto } from '@app/contracts';
import { RegenerateReply, RegenerateReplyInput } from './regenerate-reply.use-case';
import { caller, chatWorld } from './testing/chat-world';
import { AGENT_ID, MemoryChat } from './testing/memory-chat';

/** A thread `t1` of two exchanges: `u1` answered by `r1`, then `u2` answered by `r2` (ended unless said). */
const twoExchanges =
  (lastStatus: 'success' | 'running' = 'success') =>
  (chat: MemoryChat) =>
    chat.seedThread('t1', [
      ['u1', 'user', 'success', null],
      ['r1', 'assistant', 'success', 'u1'],
      ['u2', 'user', 'success', 'r1'],
      ['r2', 'assistant', lastStatus, 'u2'],
    ]);

const world = (seed: (chat: MemoryChat) => void = twoExchanges()) =>
  chatWorld(seed, (chat, settings) => new RegenerateReply(settings, chat.messageRepository, chat.replies));

const regenerate = (body: RegenerateReplyDto = {}): RegenerateReplyInput => ({ threadId: 't1', body });

describe('RegenerateReply', () => {
  it('answers the user message of the last reply shown again, as the new active leaf, and enqueues the new reply', async () => {
    const { chat, useCase } = world();

    const reply = await useCase.execute(caller, regenerate({ options: { max_steps: 2 } }));

    expect(chat.activeBranch('t1')).toEqual(['u1', 'r1', 'u2', reply.id]);
    expect(chat.message(reply.id)).toMatchObject({ replyToId: 'u2', parentId: 'u2', maxSteps: 2 });
    expect(reply).toMatchObject({ status: 'pending', live: true, agent: { id: AGENT_ID, name: 'helper' } });
    // The replaced reply stays stored, on its own branch.
    expect(chat.message('r2')).toMatchObject({ parentId: 'u2', status: 'success' });
    expect(chat.timeline).toEqual(['begin', 'commit', `enqueue ${reply.id}`]);
  });

  it('replaces the reply the request names, on whatever branch, and shows the branch up to it', async () => {
    const { chat, useCase } = world();

    const reply = await useCase.execute(caller, regenerate({ message_id: 'r1' }));

    expect(chat.activeBranch('t1')).toEqual(['u1', reply.id]);
    expect(chat.message(reply.id)?.replyToId).toBe('u1');
  });

  it('refuses (422) to regenerate a user message, and answers 404 for a message the thread does not have', async () => {
    const { chat, useCase } = world();

    const named = useCase.execute(caller, regenerate({ message_id: 'u2' }));
    await expect(named).rejects.toBeInstanceOf(InvalidInputError);
    await expect(named).rejects.toMatchObject({
      issues: [expect.objectContaining({ loc: ['body', 'message_id'], input: 'u2' })],
    });
    await expect(useCase.execute(caller, regenerate({ message_id: 'r9' }))).rejects.toThrow(
      new NotFoundError('Message not found'),
    );

    expect(chat.messages).toHaveLength(4);
    expect(chat.enqueued).toEqual([]);
  });

  it('answers 404 for a thread with no reply yet shown', async () => {
    const { useCase } = world((chat) => chat.seedThread('t1', [['u1', 'user', 'success', null]]));
    await expect(useCase.execute(caller, regenerate())).rejects.toThrow(
      new NotFoundError('Message not found'),
    );
  });

  it('answers 409 while the reply runs, unless `interrupt`: then it is told to stop before the new one is enqueued', async () => {
    const { chat, useCase } = world(twoExchanges('running'));

    await expect(
      useCase.execute(caller, regenerate({ options: { multitask_strategy: 'enqueue' } })),
    ).rejects.toThrow(ConflictError);
    expect(chat.messages).toHaveLength(4);

    const reply = await useCase.execute(caller, regenerate({ options: { multitask_strategy: 'interrupt' } }));

    // Running: only its worker ends it, so it stays live here until that worker hears the request.
    expect(chat.message('r2')).toMatchObject({ status: 'running', live: true });
    expect(chat.webhookEvents).toEqual([]);
    expect(chat.timeline.slice(-3)).toEqual(['commit', 'requestCancel r2', `enqueue ${reply.id}`]);
    expect(chat.cancelRequests).toEqual([{ threadId: 't1', messageId: 'r2' }]);
  });
});
