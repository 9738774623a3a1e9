import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MessageRepository, Scope, ThreadRepository } from '@app/persistence';
import { storedThread as storedThreadOf } from './stored-thread';
import { useTestDatabase } from '../../support/test-database';

/**
 * Whose thread and message a scoped read returns (CONTRACTS §2): another user's and another organization's are
 * missing, the same null as an id that names nothing, and so is an archived thread's; without a user id the
 * organization sees all of its own.
 */
describe('ThreadRepository and MessageRepository scoping', () => {
  const database = useTestDatabase();
  let db: DataSource;
  let threads: ThreadRepository;
  let messages: MessageRepository;
  const [orgId, otherOrgId] = [randomUUID(), randomUUID()];
  const alice: Scope = { orgId, userId: 'alice' };

  beforeAll(async () => {
    db = database.db;
    threads = new ThreadRepository(db);
    messages = new MessageRepository(db);
    await database.addOrganizations(orgId, otherOrgId);
  });

  const storedThread = (scope: Scope) => storedThreadOf(db, scope);

  it("finds the caller's own thread and message, by user and by the whole organization", async () => {
    const { thread, reply } = await storedThread(alice);
    expect((await threads.findVisible(alice, thread.id))?.id).toBe(thread.id);
    expect((await threads.findVisible({ orgId }, thread.id))?.id).toBe(thread.id);
    expect(await messages.findVisibleState(alice, reply.id)).toEqual({ id: reply.id, live: true });
    expect(await messages.findVisibleState({ orgId }, reply.id)).toEqual({ id: reply.id, live: true });
  });

  it("misses another user's thread and message, as if they did not exist", async () => {
    const { thread, question } = await storedThread(alice);
    const bob: Scope = { orgId, userId: 'bob' };
    expect(await threads.findVisible(bob, thread.id)).toBeNull();
    expect(await messages.findVisibleState(bob, question.id)).toBeNull();
    expect(await threads.listForUser({ orgId, userId: 'bob' }, { limit: 100 })).toEqual([]);
    await db.transaction(async (tx) => expect(await threads.lockVisible(tx, bob, thread.id)).toBeNull());
  });

  it("misses another organization's thread and message, even for the same user id", async () => {
    const { thread, reply } = await storedThread(alice);
    for (const scope of [{ orgId: otherOrgId, userId: 'alice' }, { orgId: otherOrgId }]) {
      expect(await threads.findVisible(scope, thread.id)).toBeNull();
      expect(await messages.findVisibleState(scope, reply.id)).toBeNull();
    }
    const listed = await threads.listForUser({ orgId: otherOrgId, userId: 'alice' }, { limit: 100 });
    expect(listed.map(({ thread: found }) => found.id)).not.toContain(thread.id);
  });

  it('misses an archived thread and its messages, and an id that names nothing', async () => {
    const { thread, reply } = await storedThread(alice);
    await db.transaction((tx) => threads.archive(tx, { orgId: thread.orgId }, thread.id));
    expect(await threads.findVisible(alice, thread.id)).toBeNull();
    expect(await messages.findVisibleState(alice, reply.id)).toBeNull();
    expect(await threads.findVisible(alice, randomUUID())).toBeNull();
    expect(await messages.findVisibleState(alice, randomUUID())).toBeNull();
  });
});
