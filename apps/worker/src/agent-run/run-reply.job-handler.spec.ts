import { DelayedError, Job } from 'bullmq';
import {
  RunAgentReply,
  RunHandedBackError,
  RunReplacedError,
  RunReplyInput,
  RunReplyResult,
} from '@app/agent';
import { AgentRunJob } from '@app/contracts';
import { AGENT_RUN_JOB } from '@app/queues';
import { memoryJob, MemoryJobOptions } from '../jobs/testing/memory-job';
import { DelayedReplies } from './delayed-replies';
import { RunReplyJobHandler } from './run-reply.job-handler';

const NOW = 1_800_000_000_000;
const reply: AgentRunJob = { messageId: 'reply-1', threadId: 'thread-1', requestId: 'req-1' };
/** The signal of an execution no newer one replaced. */
const NOT_REPLACED = new AbortController().signal;

/** The handler with a run that answers `outcome`, recording what it was asked and what was deferred. */
function world(outcome: () => Promise<RunReplyResult>) {
  const runs: RunReplyInput[] = [];
  const deferred: string[] = [];
  const runAgentReply = {
    execute: (input: RunReplyInput) => (runs.push(input), outcome()),
  } as unknown as RunAgentReply;
  const delayedReplies = {
    defer: (job: Job<AgentRunJob>, token?: string) => {
      deferred.push(`${job.data.messageId} token=${token ?? 'none'}`);
      // As the real one: the job moved, which BullMQ must be told by this error.
      return Promise.reject(new DelayedError());
    },
  } as unknown as DelayedReplies;
  return { handler: new RunReplyJobHandler(runAgentReply, delayedReplies), runs, deferred };
}

const job = (options: MemoryJobOptions = {}) =>
  memoryJob(AGENT_RUN_JOB, reply, { now: () => NOW, ...options });

beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(NOW));
afterEach(() => jest.restoreAllMocks());

describe('RunReplyJobHandler', () => {
  it("runs the job's reply with its request id and when it was enqueued, and leaves the job where it is", async () => {
    const { handler, runs, deferred } = world(() => Promise.resolve('done'));
    const { job: done, moves } = job({ attempts: 5, timestamp: NOW - 250 });

    await handler.handle(done, 'token-1', NOT_REPLACED);

    expect(runs).toEqual([
      {
        messageId: 'reply-1',
        requestId: 'req-1',
        finalAttempt: false,
        enqueuedAt: NOW - 250,
        replaced: NOT_REPLACED,
      },
    ]);
    expect(moves).toEqual([]);
    expect(deferred).toEqual([]);
  });

  it('gives the run when it was enqueued only at its first start: a deferred or retried reply waited for other reasons', async () => {
    const { handler, runs } = world(() => Promise.resolve('done'));

    await handler.handle(job({ timestamp: NOW - 250, attemptsStarted: 1 }).job, undefined, NOT_REPLACED);
    await handler.handle(job({ timestamp: NOW - 9000, attemptsStarted: 2 }).job, undefined, NOT_REPLACED);

    expect(runs.map((run) => run.enqueuedAt)).toEqual([NOW - 250, undefined]);
  });

  it('tells the run its attempt is the last when the queue will not retry it (the fifth of five, or the only one)', async () => {
    const { handler, runs } = world(() => Promise.resolve('done'));

    await handler.handle(job({ attempts: 5, attemptsMade: 3 }).job, undefined, NOT_REPLACED);
    await handler.handle(job({ attempts: 5, attemptsMade: 4 }).job, undefined, NOT_REPLACED);
    await handler.handle(job({ attemptsMade: 0 }).job, undefined, NOT_REPLACED);

    expect(runs.map((run) => run.finalAttempt)).toEqual([false, true, true]);
  });

  it('parks a reply that must wait for an earlier one as a delayed job, ending the attempt with DelayedError', async () => {
    const { handler, deferred } = world(() => Promise.resolve('wait'));

    await expect(handler.handle(job({ attempts: 5 }).job, 'token-1', NOT_REPLACED)).rejects.toBeInstanceOf(
      DelayedError,
    );

    expect(deferred).toEqual(['reply-1 token=token-1']);
  });

  it('hands a run back to the queue at once, without spending an attempt, when this worker stops', async () => {
    const { handler, deferred } = world(() => Promise.reject(new RunHandedBackError()));
    const { job: handedBack, moves } = job({ attempts: 5 });

    await expect(handler.handle(handedBack, 'token-1', NOT_REPLACED)).rejects.toBeInstanceOf(DelayedError);

    expect(moves).toEqual(['moveToDelayed +0ms token=token-1']);
    expect(deferred).toEqual([]);
  });

  it("leaves the job alone when a newer execution of it replaced the run: the lock is that execution's now", async () => {
    const { handler, deferred } = world(() => Promise.reject(new RunReplacedError()));
    const { job: replaced, moves } = job({ attempts: 5 });

    await expect(handler.handle(replaced, 'token-1', NOT_REPLACED)).rejects.toBeInstanceOf(RunReplacedError);

    expect(moves).toEqual([]);
    expect(deferred).toEqual([]);
  });

  it("fails the attempt with the run's own error otherwise, leaving the retry to BullMQ", async () => {
    const broken = new Error('model vendor unreachable');
    const { handler } = world(() => Promise.reject(broken));
    const { job: failing, moves } = job({ attempts: 5 });

    await expect(handler.handle(failing, 'token-1', NOT_REPLACED)).rejects.toBe(broken);

    expect(moves).toEqual([]);
  });
});
