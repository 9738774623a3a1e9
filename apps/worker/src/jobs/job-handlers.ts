import { WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { JobExecutions } from './job-executions';

/** What one job name of a queue does: one class per name, in its own `<job-name>.job-handler.ts`. */
export interface JobHandler<Data = unknown> {
  /**
   * `replaced` aborts when this worker took the same job again after losing its lock (JobExecutions): a handler
   * that runs for long stops then, leaving the job to the newer execution.
   */
  handle(job: Job<Data>, token: string | undefined, replaced: AbortSignal): Promise<void>;
}

/**
 * A job whose name no handler of its queue knows: a producer newer than this worker (a rolling upgrade), or a
 * mistake. It fails with this message rather than being run as another kind of job. The error is an ordinary
 * one, so the job keeps its attempts: during an upgrade a newer worker may take a retry and handle it.
 */
export class UnknownJobError extends Error {
  constructor(queue: string, jobName: string, known: readonly string[]) {
    super(`No handler for job "${jobName}" on queue "${queue}" (handled: ${known.join(', ')})`);
    this.name = UnknownJobError.name;
  }
}

/**
 * The handlers of one queue by job name, which its processor dispatches every job through, one execution of a
 * job at a time. Job names are stored with the jobs in Redis: a name, once enqueued by a release, keeps a handler
 * here.
 */
export class JobHandlers<Name extends string> {
  private readonly byName: ReadonlyMap<string, JobHandler>;
  private readonly executions: JobExecutions;

  constructor(
    private readonly queue: string,
    handlers: Record<Name, JobHandler>,
    /** The consumer's lock duration (`JOB_LOCK_MS`). */
    lockMs: number,
  ) {
    this.byName = new Map(Object.entries<JobHandler>(handlers));
    this.executions = new JobExecutions(lockMs);
  }

  handle(job: Job, token?: string): Promise<void> {
    const handler = this.byName.get(job.name);
    if (!handler) return Promise.reject(new UnknownJobError(this.queue, job.name, [...this.byName.keys()]));
    return this.executions.run(job, token, (replaced) => handler.handle(job, token, replaced));
  }
}

/**
 * A queue's consumer (declared a @Processor in its module's forRoot): every job of the queue goes to its name's
 * handler, with the worker's lock token.
 */
export abstract class JobHandlersHost<Name extends string> extends WorkerHost {
  private readonly handlers: JobHandlers<Name>;

  protected constructor(
    queue: string,
    handlers: Record<Name, JobHandler>,
    /** The consumer's lock duration (`JOB_LOCK_MS`). */
    lockMs: number,
  ) {
    super();
    this.handlers = new JobHandlers(queue, handlers, lockMs);
  }

  process(job: Job, token?: string): Promise<void> {
    return this.handlers.handle(job, token);
  }
}
