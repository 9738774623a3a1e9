import { Job } from 'bullmq';
import { JobExecutions, JobReplacedError } from './job-executions';

const LOCK_MS = 200;

/** A job as JobExecutions sees it: its id, and a record of the lock extensions asked of it. */
function lockedJob(id: string) {
  const extended: string[] = [];
  const job = {
    id,
    extendLock: (token: string, duration: number) => (
      extended.push(`${token} ${duration}`),
      Promise.resolve(1)
    ),
  } as unknown as Job;
  return { job, extended };
}

/** An execution that runs until its `finish` is called or its `replaced` signal aborts. */
function execution(log: string[], name: string) {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const execute = (replaced: AbortSignal) => {
    log.push(`${name} started`);
    return new Promise<void>((resolve, reject) => {
      replaced.addEventListener('abort', () => {
        log.push(`${name} replaced`);
        reject(replaced.reason);
      });
      void finished.then(() => (log.push(`${name} finished`), resolve()));
    });
  };
  return { execute, finish };
}

describe('JobExecutions', () => {
  it('runs executions of different jobs side by side, each without extra lock renewals', async () => {
    const executions = new JobExecutions(LOCK_MS);
    const log: string[] = [];
    const [a, b] = [lockedJob('a'), lockedJob('b')];
    const [first, second] = [execution(log, 'a'), execution(log, 'b')];

    const running = [executions.run(a.job, 't1', first.execute), executions.run(b.job, 't2', second.execute)];
    second.finish();
    first.finish();
    await Promise.all(running);

    expect(log).toEqual(['a started', 'b started', 'b finished', 'a finished']);
    expect([...a.extended, ...b.extended]).toEqual([]);
  });

  it('aborts the older execution of a job taken again, starts the newer one only after it ended, and renews the newer lock itself', async () => {
    const executions = new JobExecutions(LOCK_MS);
    const log: string[] = [];
    const { job, extended } = lockedJob('reply-1');
    const [older, newer] = [execution(log, 'older'), execution(log, 'newer')];

    const olderEnded = executions.run(job, 'stale-token', older.execute);
    const newerEnded = executions.run(job, 'current-token', newer.execute);

    await expect(olderEnded).rejects.toBeInstanceOf(JobReplacedError);
    // Renewed at half the lock's duration while it runs (BullMQ's own renewal of the id ended with the older one).
    await new Promise((resolve) => setTimeout(resolve, LOCK_MS * 1.3));
    newer.finish();
    await newerEnded;

    expect(log).toEqual(['older started', 'older replaced', 'newer started', 'newer finished']);
    expect(extended).toEqual([`current-token ${LOCK_MS}`, `current-token ${LOCK_MS}`]);
    const renewalsAtEnd = extended.length;
    await new Promise((resolve) => setTimeout(resolve, LOCK_MS));
    expect(extended).toHaveLength(renewalsAtEnd);
  });

  it('starts the newer execution after a lock duration even if the older one ignores its signal', async () => {
    const executions = new JobExecutions(LOCK_MS);
    const log: string[] = [];
    const { job } = lockedJob('reply-1');
    const newer = execution(log, 'newer');
    let stubbornFinish!: () => void;
    const stubborn = () => new Promise<void>((resolve) => (stubbornFinish = resolve));

    const olderEnded = executions.run(job, 'stale-token', stubborn);
    const started = Date.now();
    const newerEnded = executions.run(job, 'current-token', newer.execute);
    while (!log.includes('newer started')) await new Promise((resolve) => setTimeout(resolve, 10));

    expect(Date.now() - started).toBeGreaterThanOrEqual(LOCK_MS - 5);
    newer.finish();
    stubbornFinish();
    await Promise.all([olderEnded, newerEnded]);
  });
});
