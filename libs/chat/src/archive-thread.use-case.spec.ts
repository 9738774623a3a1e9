import { Logger } from '@nestjs/common';
import { NotFoundError } from '@app/contracts';
import { ArchiveThread } from './archive-thread.use-case';
import { caller } from './testing/chat-world';
import { MemoryChat } from './testing/memory-chat';

/** A thread `t1` with a running reply `r1`, a reply `r2` waiting for a person and `r3` not started. */
const busy = (chat: MemoryChat) =>
  chat.seedThread('t1', [
    ['u1', 'user', 'success', null],
    ['r1', 'assistant', 'running', 'u1'],
    ['u2', 'user', 'success', 'r1'],
    ['r2', 'assistant', 'requires_action', 'u2'],
    ['u3', 'user', 'success', 'r2'],
    ['r3', 'assistant', 'pending', 'u3'],
  ]);

function world() {
  const chat = new MemoryChat();
  busy(chat);
  const useCase = new ArchiveThread(chat.threadRepository, chat.stopper);
  return { chat, useCase };
}

describe('ArchiveThread', () => {
  it('archives the thread and cancels the replies no run holds, reported to webhooks in the same transaction', async () => {
    const { chat, useCase } = world();

    await useCase.execute(caller, { threadId: 't1' });

    expect(chat.threads.get('t1')?.archivedAt).toBeInstanceOf(Date);
    expect(chat.message('r2')).toMatchObject({ status: 'cancelled', live: false });
    expect(chat.message('r3')).toMatchObject({ status: 'cancelled', live: false });
    expect(chat.webhookEvents).toEqual(['message.cancelled r2 cancelled', 'message.cancelled r3 cancelled']);
  });

  it("after the commit, tells whichever worker runs the thread's reply to stop, then has the cancelled streams closed", async () => {
    const { chat, useCase } = world();

    await useCase.execute(caller, { threadId: 't1' });

    // The running reply is its worker's to end (and report): left live here.
    expect(chat.message('r1')).toMatchObject({ status: 'running', live: true });
    expect(chat.cancelRequests).toEqual([{ threadId: 't1' }]);
    expect(chat.timeline).toEqual([
      'begin',
      'commit',
      'requestCancel thread t1',
      'enqueueAgain r2',
      'enqueueAgain r3',
    ]);
    expect(chat.enqueuedAgain).toEqual([
      { messageId: 'r2', threadId: 't1' },
      { messageId: 'r3', threadId: 't1' },
    ]);
  });

  it('answers 404 from then on, and for a thread of another user, changing nothing', async () => {
    const { chat, useCase } = world();
    await expect(useCase.execute(caller, { threadId: 't1', userId: 'bob' })).rejects.toThrow(
      new NotFoundError('Thread not found'),
    );
    expect(chat.threads.get('t1')?.archivedAt).toBeNull();
    expect(chat.message('r3')).toMatchObject({ status: 'pending', live: true });
    expect(chat.cancelRequests).toEqual([]);

    await useCase.execute(caller, { threadId: 't1', userId: 'alice' });
    await expect(useCase.execute(caller, { threadId: 't1' })).rejects.toThrow(NotFoundError);
  });

  it('still archives when a cancelled stream cannot be closed (Redis lost): logged, its stream stays open', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const { chat, useCase } = world();
      chat.queueDown = true;

      await expect(useCase.execute(caller, { threadId: 't1' })).resolves.toBeUndefined();

      expect(chat.threads.get('t1')?.archivedAt).toBeInstanceOf(Date);
      expect(logged).toHaveBeenCalledTimes(2);
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ messageId: 'r2' }),
        'cancelled reply not enqueued: its stream is not closed',
      );
    } finally {
      logged.mockRestore();
    }
  });
});
