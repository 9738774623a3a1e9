import { loadSettings } from '@app/config';
import { LoadedRun, MessageEntity, RunRepository } from '@app/persistence';
import { ReplyWaker, RunScheduler } from './run-scheduler';

/** The waiting replies as the repository would answer: the next live reply per thread, the oldest per org. */
class MemoryRuns implements Pick<RunRepository, 'loadAndStart' | 'nextLiveReply' | 'nextWaitingReplyOfOrg'> {
  readonly starts: { replyId: string; orgCap: number }[] = [];
  nextByThread = new Map<string, string>();
  nextByOrg = new Map<string, { id: string; threadId: string }>();

  constructor(private readonly outcome: 'blocked' | 'started') {}

  loadAndStart(messageId: string, orgCap: number): Promise<LoadedRun | null> {
    this.starts.push({ replyId: messageId, orgCap });
    return Promise.resolve({ reply, thread: null, agent: null, agentVersion: null, start: this.outcome });
  }

  nextLiveReply(threadId: string): Promise<string | null> {
    return Promise.resolve(this.nextByThread.get(threadId) ?? null);
  }

  nextWaitingReplyOfOrg(orgId: string): Promise<{ id: string; threadId: string } | null> {
    return Promise.resolve(this.nextByOrg.get(orgId) ?? null);
  }
}

class RecordingWaker extends ReplyWaker {
  readonly woken: [string, string][] = [];

  wake(threadId: string, replyId: string): Promise<void> {
    this.woken.push([threadId, replyId]);
    return Promise.resolve();
  }

  wakeAt(): Promise<void> {
    return Promise.reject(new Error('no deadline is scheduled by these tests'));
  }
}

function scheduler(outcome: 'blocked' | 'started' = 'started', orgCap = '3') {
  const runs = new MemoryRuns(outcome);
  const waker = new RecordingWaker();
  const settings = loadSettings({ AGENT_RUN_ORG_CONCURRENCY: orgCap });
  return { runs, waker, scheduler: new RunScheduler(runs as unknown as RunRepository, settings, waker) };
}

const reply = { id: 'r1', threadId: 't1', orgId: 'o1', position: 2 } as MessageEntity;

describe('RunScheduler', () => {
  it('starts a reply under its organization cap and passes on whether it must wait', async () => {
    const started = scheduler('started');
    expect((await started.scheduler.loadAndStart('r1'))?.start).toBe('started');
    expect(started.runs.starts).toEqual([{ replyId: 'r1', orgCap: 3 }]);
    expect((await scheduler('blocked').scheduler.loadAndStart('r1'))?.start).toBe('blocked');
  });

  it("wakes the thread's next live reply, and nothing when the thread has none", async () => {
    const { runs, waker, scheduler: runScheduler } = scheduler();
    runs.nextByThread.set('t1', 'r2');
    await runScheduler.wakeNext('t1');
    await runScheduler.wakeNext('t2');
    expect(waker.woken).toEqual([['t1', 'r2']]);
  });

  it("gives a freed organization slot to the organization's oldest waiting reply", async () => {
    const { runs, waker, scheduler: runScheduler } = scheduler();
    runs.nextByOrg.set('o1', { id: 'r9', threadId: 't9' });
    await runScheduler.wakeOrg('o1');
    await runScheduler.wakeOrg('o2');
    expect(waker.woken).toEqual([['t9', 'r9']]);
  });

  it('looks for no waiting reply of the organization without a cap: none waits for it', async () => {
    const { runs, waker, scheduler: runScheduler } = scheduler('started', '0');
    runs.nextByOrg.set('o1', { id: 'r9', threadId: 't9' });
    await runScheduler.wakeOrg('o1');
    expect(waker.woken).toEqual([]);
  });

  it('wakes a known next reply without asking the repository, and nothing for null', async () => {
    const { waker, scheduler: runScheduler } = scheduler();
    await runScheduler.wake('t1', 'r3');
    await runScheduler.wake('t1', null);
    expect(waker.woken).toEqual([['t1', 'r3']]);
  });
});
