import { NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { Scope, ThreadSummaryRepository } from '@app/persistence';
import { CompactThread } from './compact-thread.use-case';
import { ORG } from './testing/memory-chat';

const caller: Caller = { orgId: ORG, keyId: 'key-1', requestId: 'req-1' };

interface StoredThread {
  orgId: string;
  userId: string;
  archived: boolean;
  compactionRequested: boolean;
}

/**
 * Threads as ThreadSummaryRepository.request sees them: a request is recorded on a thread the scope may see (its
 * organization's, its end user's when one is named, not archived), and answered false otherwise.
 */
function world() {
  const threads = new Map<string, StoredThread>([
    ['t1', { orgId: ORG, userId: 'alice', archived: false, compactionRequested: false }],
    ['t-archived', { orgId: ORG, userId: 'alice', archived: true, compactionRequested: false }],
    ['t-other-org', { orgId: 'org-2', userId: 'alice', archived: false, compactionRequested: false }],
  ]);
  const scopes: Scope[] = [];
  const summaries = {
    request: (scope: Scope, threadId: string) => {
      scopes.push(scope);
      const thread = threads.get(threadId);
      const visible =
        thread !== undefined &&
        thread.orgId === scope.orgId &&
        !thread.archived &&
        (scope.userId === undefined || thread.userId === scope.userId);
      if (visible) thread.compactionRequested = true;
      return Promise.resolve(visible);
    },
  } as unknown as ThreadSummaryRepository;
  return { threads, scopes, useCase: new CompactThread(summaries) };
}

describe('CompactThread', () => {
  it("asks the thread's next run for a summary, in the caller's organization and as the end user named", async () => {
    const { threads, scopes, useCase } = world();

    await expect(useCase.execute(caller, { threadId: 't1', userId: 'alice' })).resolves.toBeUndefined();

    expect(threads.get('t1')?.compactionRequested).toBe(true);
    expect(scopes).toEqual([{ orgId: ORG, userId: 'alice' }]);
  });

  it("answers 404 for a thread the caller may not see (another end user's, another organization's, archived, none)", async () => {
    const { threads, useCase } = world();
    const notFound = new NotFoundError('Thread not found');

    await expect(useCase.execute(caller, { threadId: 't1', userId: 'bob' })).rejects.toThrow(notFound);
    for (const threadId of ['t-other-org', 't-archived', 'nope'])
      await expect(useCase.execute(caller, { threadId })).rejects.toThrow(notFound);

    expect([...threads.values()].some((thread) => thread.compactionRequested)).toBe(false);
  });
});
