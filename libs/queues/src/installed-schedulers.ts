import { Queue } from 'bullmq';

/**
 * The ids of a queue's job schedulers, in one command: BullMQ indexes them in the queue's `repeat` sorted set
 * (what `Queue.getJobSchedulers` pages through before it reads each scheduler's hash, a round trip each).
 */
export async function installedSchedulerIds(queue: Queue): Promise<string[]> {
  const client = await queue.client;
  return client.zrange(queue.keys.repeat, 0, -1);
}
