import { Job } from 'bullmq';
import { JobHandler, JobHandlers, UnknownJobError } from './job-handlers';
import { memoryJob } from './testing/memory-job';

/** A handler that records the jobs it was given, with the token, as `<name> <data> <token>`. */
function recording(handled: string[]): JobHandler<{ id: string }> {
  return {
    handle: (job: Job<{ id: string }>, token?: string) => {
      handled.push(`${job.name} ${job.data.id} ${token ?? 'none'}`);
      return Promise.resolve();
    },
  };
}

/** The handlers of `some-queue` for the job names `first` and `second`, both recording into `handled`. */
function firstAndSecond() {
  const handled: string[] = [];
  const handlers = new JobHandlers(
    'some-queue',
    { first: recording(handled), second: recording(handled) },
    30000,
  );
  return { handled, handlers };
}

describe('JobHandlers', () => {
  it("hands each job to its own name's handler only, with the worker's lock token", async () => {
    const { handled, handlers } = firstAndSecond();

    await handlers.handle(memoryJob('second', { id: 'a' }).job, 'token-1');
    await handlers.handle(memoryJob('first', { id: 'b' }).job);

    expect(handled).toEqual(['second a token-1', 'first b none']);
  });

  it('fails a job whose name has no handler, naming the job, the queue and the names it handles, running none', async () => {
    const { handled, handlers } = firstAndSecond();

    const failure = handlers.handle(memoryJob('unknown-job', { id: 'a' }).job);

    await expect(failure).rejects.toThrow(UnknownJobError);
    await expect(failure).rejects.toThrow(
      'No handler for job "unknown-job" on queue "some-queue" (handled: first, second)',
    );
    expect(handled).toEqual([]);
  });

  it("passes a handler's failure through unchanged, so BullMQ retries the job as its attempts allow", async () => {
    const broken = new Error('PostgreSQL is down');
    const handlers = new JobHandlers(
      'some-queue',
      { first: { handle: () => Promise.reject(broken) } },
      30000,
    );

    await expect(handlers.handle(memoryJob('first', {}).job)).rejects.toBe(broken);
  });
});
