import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A BullMQ queue of the service's under a Redis prefix of one test file's own, on the test Redis. */
export class TestQueue<Job> {
  readonly prefix: string;
  private opened?: { connection: Redis; queue: Queue<Job> };

  constructor(
    private readonly name: string,
    prefixStem: string,
  ) {
    this.prefix = `${prefixStem}_${process.pid}_${Date.now()}`;
  }

  open(): void {
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    this.opened = { connection, queue: new Queue<Job>(this.name, { connection, prefix: this.prefix }) };
  }

  /** Removes every job of the queue, then closes it and its connection. */
  async close(): Promise<void> {
    if (!this.opened) return;
    await this.opened.queue.obliterate({ force: true });
    await this.opened.queue.close();
    this.opened.connection.disconnect();
  }

  get connection(): Redis {
    return this.running().connection;
  }

  get queue(): Queue<Job> {
    return this.running().queue;
  }

  private running() {
    if (!this.opened) throw new Error('the queue is used before its beforeAll hook opened it');
    return this.opened;
  }
}

/**
 * A queue opened in a beforeAll hook and emptied and closed in an afterAll hook of the describe block it is called
 * in; what uses it closes in an afterAll hook declared before this call.
 */
export function useTestQueue<Job>(name: string, prefixStem: string): TestQueue<Job> {
  const testQueue = new TestQueue<Job>(name, prefixStem);
  beforeAll(() => testQueue.open());
  afterAll(() => testQueue.close());
  return testQueue;
}
