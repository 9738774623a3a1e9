import { ConflictError, InvalidInputError, NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { MESSAGE_NOT_FOUND } from './decide-approval.use-case';
import { SetActiveBranch } from './set-active-branch.use-case';
import { MemoryChat, ORG, SeededMessage } from './testing/memory-chat';

const caller: Caller = { orgId: ORG, keyId: 'key-1', requestId: 'req-1' };

/**
 * A thread `t1` whose first reply was regenerated (r1, r1b), and whose first branch goes on (u2, r2): three
 * leaves, r2, r1b and whatever `last` adds; the active one is the last seeded.
 */
function world(last: SeededMessage[] = []) {
  const chat = new MemoryChat();
  chat.seedThread('t1', [
    ['u1', 'user', 'success', null],
    ['r1', 'assistant', 'success', 'u1'],
    ['u2', 'user', 'success', 'r1'],
    ['r2', 'assistant', 'success', 'u2'],
    ['r1b', 'assistant', 'success', 'u1'],
    ...last,
  ]);
  chat.seedThread('t2', [['v1', 'user', 'success', null]]);
  const useCase = new SetActiveBranch(
    chat.db,
    chat.threadRepository,
    chat.messageRepository,
    chat.agentRepository,
    chat.attachments,
  );
  const switchTo = (leafId: string, userId?: string) =>
    useCase.execute(caller, { threadId: 't1', userId, body: { leaf_message_id: leafId } });
  return { chat, switchTo };
}

describe('SetActiveBranch', () => {
  it('shows, and continues, the branch ending at the given leaf, and answers that branch', async () => {
    const { chat, switchTo } = world();
    expect(chat.activeBranch('t1')).toEqual(['u1', 'r1b']);

    const thread = await switchTo('r2', 'alice');

    expect(chat.threads.get('t1')?.activeLeafId).toBe('r2');
    expect(chat.activeBranch('t1')).toEqual(['u1', 'r1', 'u2', 'r2']);
    expect(thread.messages.map((message) => message.id)).toEqual(['u1', 'r1', 'u2', 'r2']);
  });

  it("answers 404 for a message the thread does not have (another thread's too), changing nothing", async () => {
    const { chat, switchTo } = world();

    await expect(switchTo('nope')).rejects.toThrow(new NotFoundError(MESSAGE_NOT_FOUND));
    await expect(switchTo('v1')).rejects.toThrow(new NotFoundError(MESSAGE_NOT_FOUND));

    expect(chat.threads.get('t1')?.activeLeafId).toBe('r1b');
    expect(chat.threads.get('t2')?.activeLeafId).toBe('v1');
  });

  it('refuses a message that is followed by another (422 at leaf_message_id): a branch is named by its leaf', async () => {
    const { chat, switchTo } = world();

    const refused = await switchTo('r1').catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as InvalidInputError).issues).toEqual([
      expect.objectContaining({ loc: ['body', 'leaf_message_id'], input: 'r1' }),
    ]);
    expect(chat.threads.get('t1')?.activeLeafId).toBe('r1b');
  });

  it("refuses (409) while a reply is live: the live reply's branch stays the one shown until it ends", async () => {
    const { chat, switchTo } = world([
      ['u3', 'user', 'success', 'r1b'],
      ['r3', 'assistant', 'pending', 'u3'],
    ]);

    await expect(switchTo('r2')).rejects.toThrow(new ConflictError('Thread has a live reply'));

    expect(chat.threads.get('t1')?.activeLeafId).toBe('r3');
    expect(chat.timeline).toEqual(['begin', 'rollback']);
  });

  it("answers 404 for another end user's thread", async () => {
    const { chat, switchTo } = world();
    await expect(switchTo('r2', 'bob')).rejects.toThrow(new NotFoundError('Thread not found'));
    expect(chat.threads.get('t1')?.activeLeafId).toBe('r1b');
  });
});
