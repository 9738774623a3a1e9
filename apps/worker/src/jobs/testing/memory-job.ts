import { Job } from 'bullmq';

/** What a fake job was told to do with itself, in order: `moveToDelayed <ms from now>`, `promote`. */
type JobMove = string;

export interface MemoryJobOptions {
  id?: string;
  attemptsMade?: number;
  /** How many times the job was moved to active, this time included (BullMQ's `attemptsStarted`): 1 unless told. */
  attemptsStarted?: number;
  /** The job's `opts.attempts`; BullMQ reads none as 1. */
  attempts?: number;
  timestamp?: number;
  /** A scheduler's job: the slot it was produced for. */
  prevMillis?: number;
  now?: () => number;
}

/**
 * A BullMQ job as a processor and its handlers see it, in memory, for unit specs: its name, data, attempts and
 * options, and a record of the moves asked of it (`moves`), so a spec can tell where the job went.
 */
export function memoryJob<Data>(
  name: string,
  data: Data,
  options: MemoryJobOptions = {},
): { job: Job<Data>; moves: JobMove[] } {
  const moves: JobMove[] = [];
  const now = options.now ?? Date.now;
  const job = {
    id: options.id ?? 'job-1',
    name,
    data,
    attemptsMade: options.attemptsMade ?? 0,
    attemptsStarted: options.attemptsStarted ?? 1,
    timestamp: options.timestamp ?? 0,
    opts: { attempts: options.attempts, prevMillis: options.prevMillis },
    moveToDelayed: (at: number, token?: string) => {
      moves.push(`moveToDelayed +${at - now()}ms token=${token ?? 'none'}`);
      return Promise.resolve();
    },
    promote: () => {
      moves.push('promote');
      return Promise.resolve();
    },
  };
  return { job: job as unknown as Job<Data>, moves };
}
