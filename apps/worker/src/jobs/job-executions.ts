import { Job } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';

/** The reason an execution's `replaced` signal carries: a newer execution of its job took over in this process. */
export class JobReplacedError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} was taken again by this worker (its lock was lost): the newer execution goes on`);
    this.name = JobReplacedError.name;
  }
}

interface Execution {
  replaced: AbortController;
  ended: Promise<unknown>;
}

/**
 * One execution of a job id at a time in this worker process, the newest winning.
 *
 * A job whose lock was lost (its key was on a Redis master that died before replicating it) is put back by the
 * stalled check, and this same worker may take it again while its first execution still runs. BullMQ tracks
 * lock renewals by job id, so whichever execution ends first stops the other's renewals: that lock lapses, the
 * job stalls again, and two runs of one reply take its log from each other over and over (a reply stuck for
 * 80 s in the sharded pub/sub chaos spec). So a newer execution, which holds the job's current lock, aborts the
 * older one, waits for it to end (at most a lock's duration), and renews its own lock from then on.
 */
export class JobExecutions {
  private readonly running = new Map<string, Execution>();

  constructor(private readonly lockMs: number) {}

  run(job: Job, token: string | undefined, execute: (replaced: AbortSignal) => Promise<void>): Promise<void> {
    const id = job.id;
    const replaced = new AbortController();
    if (id === undefined) return execute(replaced.signal);
    const previous = this.running.get(id);
    const ended = previous
      ? this.takeOver(previous, job, token, () => execute(replaced.signal))
      : execute(replaced.signal);
    const execution = { replaced, ended: ended.catch(() => undefined) };
    this.running.set(id, execution);
    return ended.finally(() => {
      if (this.running.get(id) === execution) this.running.delete(id);
    });
  }

  private async takeOver(
    previous: Execution,
    job: Job,
    token: string | undefined,
    execute: () => Promise<void>,
  ): Promise<void> {
    previous.replaced.abort(new JobReplacedError(job.id!));
    await Promise.race([previous.ended, sleep(this.lockMs, undefined, { ref: false })]);
    // The older execution's end untracks the job id in BullMQ, this execution's renewals with it.
    const renewals = token
      ? setInterval(() => void job.extendLock(token, this.lockMs).catch(() => undefined), this.lockMs / 2)
      : undefined;
    try {
      await execute();
    } finally {
      clearInterval(renewals);
    }
  }
}
