import { DelayedError, Queue } from 'bullmq';
import { Settings } from '@app/config';
import { AgentRunJob } from '@app/contracts';
import { RunRepository } from '@app/persistence';
import { AGENT_RUN_JOB, AgentRunQueue } from '@app/queues';
import { memoryJob } from '../jobs/testing/memory-job';
import { DelayedReplies } from './delayed-replies';

const NOW = 1_800_000_000_000;

/**
 * DelayedReplies over an in-memory queue: `jobs` holds the queue's jobs by id with their state, `blocked` the
 * replies the scheduling rule still holds back; what was promoted or enqueued is recorded.
 */
function world(options: { jobs?: Record<string, 'delayed' | 'active'>; blocked?: string[] } = {}) {
  const promoted: string[] = [];
  const enqueued: string[] = [];
  const deadlines: string[] = [];
  const orgCaps: number[] = [];
  const queue = {
    getJob: (id: string) => {
      const state = options.jobs?.[id];
      if (!state) return Promise.resolve(undefined);
      return Promise.resolve({
        isDelayed: () => Promise.resolve(state === 'delayed'),
        promote: () => (promoted.push(id), Promise.resolve()),
      });
    },
  } as unknown as Queue<AgentRunJob>;
  const agentRuns = {
    enqueue: (job: AgentRunJob) => (enqueued.push(`${job.messageId} in ${job.threadId}`), Promise.resolve()),
    enqueueApprovalDeadline: (job: AgentRunJob, at: Date) => (
      deadlines.push(`${job.messageId} in ${job.threadId} at ${at.toISOString()}`),
      Promise.resolve()
    ),
  } as unknown as AgentRunQueue;
  const runs = {
    isBlocked: (messageId: string, orgCap: number) => (
      orgCaps.push(orgCap),
      Promise.resolve(options.blocked?.includes(messageId) ?? false)
    ),
  } as unknown as RunRepository;
  const settings = Object.assign(new Settings(), { agentRunOrgConcurrency: 3 });
  return {
    delayed: new DelayedReplies(queue, agentRuns, runs, settings),
    promoted,
    enqueued,
    deadlines,
    orgCaps,
  };
}

const replyJob = () =>
  memoryJob(AGENT_RUN_JOB, { messageId: 'reply-2', threadId: 'thread-1' }, { now: () => NOW });

beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(NOW));
afterEach(() => jest.restoreAllMocks());

describe('DelayedReplies.defer', () => {
  it("parks a blocked reply's job for a bounded while and tells BullMQ it moved", async () => {
    const { delayed, orgCaps } = world({ blocked: ['reply-2'] });
    const { job, moves } = replyJob();

    await expect(delayed.defer(job, 'token-1')).rejects.toBeInstanceOf(DelayedError);

    expect(moves).toEqual(['moveToDelayed +2000ms token=token-1']);
    expect(orgCaps).toEqual([3]);
  });

  it('promotes the parked job at once when the reply it waited for ended before the job was parked', async () => {
    const { delayed } = world({ blocked: [] });
    const { job, moves } = replyJob();

    await expect(delayed.defer(job, 'token-1')).rejects.toBeInstanceOf(DelayedError);

    expect(moves).toEqual(['moveToDelayed +2000ms token=token-1', 'promote']);
  });
});

describe('DelayedReplies.wake', () => {
  it("promotes the reply's parked job", async () => {
    const { delayed, promoted, enqueued } = world({ jobs: { 'reply-2': 'delayed' } });
    await delayed.wake('thread-1', 'reply-2');
    expect(promoted).toEqual(['reply-2']);
    expect(enqueued).toEqual([]);
  });

  it('leaves a job that already woke on its own and runs', async () => {
    const { delayed, promoted, enqueued } = world({ jobs: { 'reply-2': 'active' } });
    await delayed.wake('thread-1', 'reply-2');
    expect(promoted).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it('enqueues a reply that has no job (Redis lost it, or it was never added)', async () => {
    const { delayed, promoted, enqueued } = world();
    await delayed.wake('thread-1', 'reply-2');
    expect(promoted).toEqual([]);
    expect(enqueued).toEqual(['reply-2 in thread-1']);
  });
});

describe('DelayedReplies.wakeAt', () => {
  it("schedules the reply's approval deadline job at the deadline", async () => {
    const { delayed, deadlines } = world();
    await delayed.wakeAt('thread-1', 'reply-2', new Date('2026-11-30T09:00:00Z'));
    expect(deadlines).toEqual(['reply-2 in thread-1 at 2026-11-30T09:00:00.000Z']);
  });
});
