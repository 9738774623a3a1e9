import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { AgentRunJob } from '@app/contracts';
import { LiveReply, RunRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { SweepPendingReplies } from './sweep-pending-replies';

type JobState = 'waiting' | 'prioritized' | 'delayed' | 'active' | 'completed' | 'failed' | 'unknown';

/**
 * The sweep over replies PostgreSQL holds live and untouched (`stale`), a queue holding jobs by reply id in a
 * state (none: the job is missing), and a Redis whose keys expire only when told: what was enqueued again, and
 * the age the sweep asked for, are recorded.
 */
function world(stale: LiveReply[], jobs: Record<string, JobState>) {
  const enqueuedAgain: AgentRunJob[] = [];
  const askedOlderThan: number[] = [];
  const keys = new Map<string, string>();
  const redis = {
    set: (key: string, value: string, _px: 'PX', _ms: number, _nx: 'NX') => {
      if (keys.has(key)) return Promise.resolve(null);
      keys.set(key, value);
      return Promise.resolve('OK');
    },
  } as unknown as Redis;
  const runs = {
    staleLiveReplies: (olderThanMs: number) => (askedOlderThan.push(olderThanMs), Promise.resolve(stale)),
  } as unknown as RunRepository;
  const agentRuns = {
    enqueueAgain: (job: AgentRunJob) => (enqueuedAgain.push(job), Promise.resolve()),
  } as unknown as AgentRunQueue;
  const queue = {
    getJob: (id: string) => {
      const state = jobs[id];
      return Promise.resolve(state ? { getState: () => Promise.resolve(state) } : undefined);
    },
  } as unknown as Queue<AgentRunJob>;
  const settings = Object.assign(new Settings(), {
    redisPrefix: 'test',
    runSweepIntervalMs: 15000,
    runSweepAfterMs: 30000,
  });
  /** A worker's sweep: every worker runs one, over the same database, queue and Redis. */
  const worker = () => new SweepPendingReplies(settings, runs, agentRuns, queue, redis);
  /** Another interval begins: the lock of the last one lapsed. */
  const nextInterval = () => keys.clear();
  return { sweep: worker(), worker, enqueuedAgain, askedOlderThan, nextInterval };
}

const live = (id: string, status: LiveReply['status'] = 'pending'): LiveReply => ({
  id,
  threadId: `thread-of-${id}`,
  status,
});

describe('SweepPendingReplies', () => {
  it('gives their job back to the stale replies the queue forgot (no job, or one that failed or completed), once each', async () => {
    const { sweep, enqueuedAgain, askedOlderThan } = world(
      [live('never-enqueued'), live('failed', 'running'), live('completed', 'requires_action'), live('lost')],
      { failed: 'failed', completed: 'completed', lost: 'unknown' },
    );

    expect(await sweep.sweep()).toEqual(['never-enqueued', 'failed', 'completed', 'lost']);

    expect(askedOlderThan).toEqual([30000]);
    expect(enqueuedAgain).toEqual([
      { messageId: 'never-enqueued', threadId: 'thread-of-never-enqueued' },
      { messageId: 'failed', threadId: 'thread-of-failed' },
      { messageId: 'completed', threadId: 'thread-of-completed' },
      { messageId: 'lost', threadId: 'thread-of-lost' },
    ]);
  });

  it('leaves a reply whose job still waits, is parked (delayed) or runs: the queue has not forgotten it', async () => {
    const { sweep, enqueuedAgain } = world(
      [live('waiting'), live('prioritized'), live('parked'), live('running', 'running'), live('forgotten')],
      { waiting: 'waiting', prioritized: 'prioritized', parked: 'delayed', running: 'active' },
    );

    expect(await sweep.sweep()).toEqual(['forgotten']);
    expect(enqueuedAgain.map((job) => job.messageId)).toEqual(['forgotten']);
  });

  it('sweeps once per interval across workers: a pass that finds the lock taken reads and enqueues nothing', async () => {
    const { sweep, worker, enqueuedAgain, askedOlderThan, nextInterval } = world([live('forgotten')], {});
    const otherWorker = worker();

    expect(await sweep.sweep()).toEqual(['forgotten']);
    expect(await otherWorker.sweep()).toEqual([]);
    expect(askedOlderThan).toHaveLength(1);

    nextInterval();
    expect(await sweep.sweep()).toEqual(['forgotten']);
    expect(enqueuedAgain).toHaveLength(2);
  });
});
