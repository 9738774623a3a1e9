import { ConflictError, EditMessageDto, InvalidInputError, NotFoundError } from '@app/contracts';
import { EditMessage, EditMessageInput } from './edit-message.use-case';
import { caller, chatWorld } from './testing/chat-world';
import { MemoryChat } from './testing/memory-chat';

/** A thread `t1` of two ended exchanges: `u1` answered by `r1`, then `u2` answered by `r2`. */
const twoExchanges = (chat: MemoryChat) =>
  chat.seedThread('t1', [
    ['u1', 'user', 'success', null],
    ['r1', 'assistant', 'success', 'u1'],
    ['u2', 'user', 'success', 'r1'],
    ['r2', 'assistant', 'success', 'u2'],
  ]);

const world = (seed: (chat: MemoryChat) => void = twoExchanges) =>
  chatWorld(
    seed,
    (chat, settings) =>
      new EditMessage(settings, chat.agentRepository, chat.messageRepository, chat.attachments, chat.replies),
  );

const edit = (
  messageId: string,
  options: EditMessageDto['options'] = {},
  message: EditMessageDto['message'] = { content: 'Rather this' },
): EditMessageInput => ({
  threadId: 't1',
  body: { message_id: messageId, message, options } as EditMessageDto,
});

describe('EditMessage', () => {
  it('puts the new message where the edited one was, with a pending reply, as the branch the thread shows', async () => {
    const { chat, useCase } = world();

    const thread = await useCase.execute(caller, edit('u2'));

    const [question, reply] = chat.activeBranch('t1').slice(2);
    expect(chat.activeBranch('t1')).toEqual(['u1', 'r1', question, reply]);
    expect(chat.message(question)).toMatchObject({ role: 'user', content: 'Rather this', parentId: 'r1' });
    expect(chat.message(reply)).toMatchObject({ status: 'pending', replyToId: question, maxSteps: 7 });
    // The thread as it now shows: the new branch, its reply live.
    expect(thread.messages.map((message) => message.id)).toEqual(['u1', 'r1', question, reply]);
    expect(thread.live).toBe(true);
    expect(chat.timeline).toEqual(['begin', 'commit', `enqueue ${reply}`]);
    expect(chat.enqueued.map((enqueued) => enqueued.job)).toEqual([
      { messageId: reply, threadId: 't1', requestId: 'req-1' },
    ]);
  });

  it('keeps the edited message and what followed it stored, as another branch', async () => {
    const { chat, useCase } = world();
    await useCase.execute(caller, edit('u2'));
    expect(chat.message('u2')).toMatchObject({ parentId: 'r1', role: 'user' });
    expect(chat.message('r2')).toMatchObject({ parentId: 'u2', status: 'success' });
  });

  it("starts a new branch from the thread's beginning when the first message is edited", async () => {
    const { chat, useCase } = world();
    await useCase.execute(caller, edit('u1'));
    const [question] = chat.activeBranch('t1');
    expect(chat.activeBranch('t1')).toHaveLength(2);
    expect(chat.message(question)).toMatchObject({ role: 'user', parentId: null });
  });

  it('refuses (422) to edit a reply, and answers 404 for a message the thread does not have, storing nothing', async () => {
    const { chat, useCase } = world();

    const reply = useCase.execute(caller, edit('r1'));
    await expect(reply).rejects.toBeInstanceOf(InvalidInputError);
    await expect(reply).rejects.toMatchObject({
      issues: [expect.objectContaining({ loc: ['body', 'message_id'], input: 'r1' })],
    });
    await expect(useCase.execute(caller, edit('u9'))).rejects.toThrow(new NotFoundError('Message not found'));

    expect(chat.messages).toHaveLength(4);
    expect(chat.enqueued).toEqual([]);
  });

  it("checks the files it attaches are the thread owner's, whoever the call names", async () => {
    const { chat, useCase } = world();
    await useCase.execute(caller, edit('u2', {}, { content: 'See this', file_ids: ['file-1'] }));
    expect(chat.timeline[1]).toBe('requireUploaded alice file-1');
  });

  describe('while the thread has a live reply', () => {
    const answering = (chat: MemoryChat) =>
      chat.seedThread('t1', [
        ['u1', 'user', 'success', null],
        ['r1', 'assistant', 'requires_action', 'u1'],
      ]);

    it('answers 409, even when the request asks to queue behind it: an edit changes what the next reply answers', async () => {
      const { chat, useCase } = world(answering);

      for (const multitask_strategy of [undefined, 'enqueue', 'reject'] as const) {
        await expect(useCase.execute(caller, edit('u1', { multitask_strategy }))).rejects.toThrow(
          ConflictError,
        );
      }

      expect(chat.messages).toHaveLength(2);
      expect(chat.message('r1')).toMatchObject({ status: 'requires_action', live: true });
      expect(chat.enqueued).toEqual([]);
    });

    it('under `interrupt`, cancels the reply waiting for a person and closes its stream, then enqueues the new one', async () => {
      const { chat, useCase } = world(answering);

      await useCase.execute(caller, edit('u1', { multitask_strategy: 'interrupt' }));

      const [, reply] = chat.activeBranch('t1');
      expect(chat.message('r1')).toMatchObject({ status: 'cancelled', live: false });
      expect(chat.webhookEvents).toEqual(['message.cancelled r1 cancelled']);
      // No run held it: nothing to stop, only its stream to close.
      expect(chat.cancelRequests).toEqual([]);
      expect(chat.timeline).toEqual(['begin', 'commit', 'enqueueAgain r1', `enqueue ${reply}`]);
    });
  });
});
