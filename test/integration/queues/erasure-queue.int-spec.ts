import { Queue, Worker } from 'bullmq';
import { EraseUserJob, QUEUE } from '@app/contracts';
import { ErasureQueue } from '@app/queues';
import { useTestQueue } from './test-queue';

/**
 * A running erasure always has a job that will run: none (Redis lost it) is queued again, one whose attempts ran
 * out is retried from its first attempt, one waiting or running is left alone (the workers' sweep and start-up
 * call this for every running erasure).
 */
describe('ErasureQueue.ensureQueued', () => {
  const erasureQueue = useTestQueue<EraseUserJob>(QUEUE.erasure, 'erasure_queue');
  let queue: Queue<EraseUserJob>;
  let erasures: ErasureQueue;

  beforeAll(() => {
    queue = erasureQueue.queue;
    erasures = new ErasureQueue(queue as never);
  });

  it('queues a lost job, leaves a waiting one, and retries one whose attempts ran out', async () => {
    expect(await erasures.ensureQueued('e1')).toBe('queued');
    expect(await (await queue.getJob('e1'))!.getState()).toBe('waiting');
    expect(await erasures.ensureQueued('e1')).toBeNull();

    // A job that failed for good: a worker whose every attempt throws, on a job allowed one attempt.
    await queue.add('erase-user', { erasureId: 'e2' }, { jobId: 'e2', attempts: 1, removeOnFail: 1000 });
    await (await queue.getJob('e1'))!.remove();
    const workerConnection = erasureQueue.connection.duplicate();
    const failing = new Worker<EraseUserJob>(
      QUEUE.erasure,
      () => Promise.reject(new Error('the store is down')),
      { connection: workerConnection, prefix: erasureQueue.prefix },
    );
    const failed = new Promise<void>((resolve) => failing.on('failed', () => resolve()));
    await failed;
    await failing.close();
    workerConnection.disconnect();
    expect(await (await queue.getJob('e2'))!.getState()).toBe('failed');

    expect(await erasures.ensureQueued('e2')).toBe('retried');
    const retried = (await queue.getJob('e2'))!;
    expect(await retried.getState()).toBe('waiting');
    expect(retried.attemptsMade).toBe(0);
  });
});
