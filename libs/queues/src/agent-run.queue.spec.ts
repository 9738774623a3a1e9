import { Queue } from 'bullmq';
import { AgentRunJob } from '@app/contracts';
import { AgentRunQueue } from './agent-run.queue';

type JobState = 'waiting' | 'prioritized' | 'delayed' | 'active' | 'completed' | 'failed';

/** A queue holding, by reply id, one job in a state: what was removed, promoted and added is recorded in order. */
function world(jobs: Record<string, JobState>) {
  const done: string[] = [];
  const queue = {
    getJob: (id: string) => {
      const state = jobs[id];
      if (!state) return Promise.resolve(undefined);
      return Promise.resolve({
        getState: () => Promise.resolve(state),
        remove: () => (done.push(`remove ${id}`), Promise.resolve()),
        promote: () => (done.push(`promote ${id}`), Promise.resolve()),
      });
    },
    add: (_name: string, job: AgentRunJob) => (done.push(`add ${job.messageId}`), Promise.resolve()),
  } as unknown as Queue<AgentRunJob>;
  return { queue: new AgentRunQueue(queue), done };
}

const job = (messageId: string): AgentRunJob => ({ messageId, threadId: 'thread-1' });

describe('AgentRunQueue.enqueueAgain', () => {
  it('runs a delayed job now (a parked reply cancelled: its stream is closed by it), adding nothing', async () => {
    const { queue, done } = world({ parked: 'delayed' });
    await queue.enqueueAgain(job('parked'));
    expect(done).toEqual(['promote parked']);
  });

  it('replaces a job that ended while its reply stayed live', async () => {
    const { queue, done } = world({ waited: 'completed', broke: 'failed' });
    await queue.enqueueAgain(job('waited'));
    await queue.enqueueAgain(job('broke'));
    expect(done).toEqual(['remove waited', 'add waited', 'remove broke', 'add broke']);
  });

  it('adds a missing job, and leaves one that waits or runs as it is (the add is a no-op under its id)', async () => {
    const { queue, done } = world({ queued: 'prioritized', running: 'active' });
    await queue.enqueueAgain(job('lost'));
    await queue.enqueueAgain(job('queued'));
    await queue.enqueueAgain(job('running'));
    expect(done).toEqual(['add lost', 'add queued', 'add running']);
  });
});
