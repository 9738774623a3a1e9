import { Queue, Worker } from 'bullmq';
import { AgentRunJob, QUEUE } from '@app/contracts';
import { AgentRunQueue } from '@app/queues';
import { useTestQueue } from './test-queue';

/**
 * What KEDA scales workers on (the gateway's /health/runs): runs waiting for a worker, which BullMQ keeps in its
 * `prioritized` set since every run carries its fair-share priority, plus runs being served; never the runs
 * parked as delayed jobs behind an earlier reply or an organization's cap.
 */
describe('AgentRunQueue.outstanding', () => {
  let consumer: Worker;
  // Declared before the queue's hooks: the consumer closes before the queue is emptied and closed.
  afterAll(() => consumer?.close());
  const agentRuns = useTestQueue<AgentRunJob>(QUEUE.agentRun, 'outstanding');
  let queue: Queue<AgentRunJob>;

  beforeAll(() => {
    queue = agentRuns.queue;
    // No processor: jobs are taken by hand, so one stays active for as long as the test needs.
    consumer = new Worker(QUEUE.agentRun, null, {
      connection: agentRuns.connection,
      prefix: agentRuns.prefix,
      autorun: false,
    });
  });

  it('counts waiting (prioritized) and running runs, not delayed ones', async () => {
    const runs = new AgentRunQueue(queue as never);
    expect(await runs.outstanding()).toEqual({ waiting: 0, running: 0, outstanding: 0 });

    for (const [i, backlog] of [0, 1, 2].entries())
      await runs.enqueue(
        { messageId: `m${i}`, threadId: `t${i}`, requestId: `r${i}` } as AgentRunJob,
        backlog,
      );
    await queue.add('run-reply', { messageId: 'parked' } as AgentRunJob, { jobId: 'parked', delay: 60000 });
    expect(await queue.getJobCountByTypes('wait')).toBe(0);
    expect(await runs.outstanding()).toEqual({ waiting: 3, running: 0, outstanding: 3 });

    const taken = await consumer.getNextJob('token-1');
    expect(taken?.id).toBe('m0');
    expect(await runs.outstanding()).toEqual({ waiting: 2, running: 1, outstanding: 3 });
  });
});
