import { EventEmitter } from 'node:events';
import { ActiveRuns, RunCancelledError } from '@app/agent';
import { Settings } from '@app/config';
import { runCancellationChannel, RunCancellationRequest } from '@app/run-events';
import { RunCancellationListener } from './run-cancellation.listener';

/**
 * The subscriber connection the listener makes, in memory: what it subscribed to, whether it quit, and a
 * `deliver` that hands it a message as Redis would. Only the connection factory is replaced: the listener and
 * the runs it steers are the real ones.
 */
class MemorySubscriber extends EventEmitter {
  readonly channels: string[] = [];
  quitted = false;

  subscribe(channel: string): Promise<number> {
    this.channels.push(channel);
    return Promise.resolve(this.channels.length);
  }

  quit(): Promise<'OK'> {
    this.quitted = true;
    return Promise.resolve('OK');
  }

  deliver(request: RunCancellationRequest): void {
    this.emit('message', this.channels[0], JSON.stringify(request));
  }
}

const subscribers: MemorySubscriber[] = [];
jest.mock('@app/redis', () => ({
  ...jest.requireActual<object>('@app/redis'),
  createRedisConnection: () => {
    const subscriber = new MemorySubscriber();
    subscribers.push(subscriber);
    return subscriber;
  },
}));

async function world() {
  const activeRuns = new ActiveRuns();
  const settings = Object.assign(new Settings(), { redisPrefix: 'test' });
  const listener = new RunCancellationListener(settings, activeRuns);
  await listener.onApplicationBootstrap();
  return { listener, activeRuns, subscriber: subscribers.at(-1)! };
}

afterEach(() => (subscribers.length = 0));

describe('RunCancellationListener', () => {
  it("listens on the deployment's cancellation channel, one connection per worker", async () => {
    const { subscriber } = await world();
    expect(subscribers).toHaveLength(1);
    expect(subscriber.channels).toEqual([runCancellationChannel('test')]);
  });

  it("aborts the run it holds of the thread, named or not, and leaves the thread's other replies and threads alone", async () => {
    const { activeRuns, subscriber } = await world();
    const running = activeRuns.start('thread-1', 'reply-1');
    const elsewhere = activeRuns.start('thread-2', 'reply-9');

    // A cancel of a later reply of the same thread is not this run's.
    subscriber.deliver({ threadId: 'thread-1', messageId: 'reply-2' });
    expect(running.signal.aborted).toBe(false);

    subscriber.deliver({ threadId: 'thread-1', messageId: 'reply-1' });
    expect(running.signal.aborted).toBe(true);
    expect(running.signal.reason).toBeInstanceOf(RunCancelledError);

    // An archive names no reply: whatever runs of the thread stops.
    const next = activeRuns.start('thread-3', 'reply-3');
    subscriber.deliver({ threadId: 'thread-3' });
    expect(next.signal.aborted).toBe(true);
    expect(elsewhere.signal.aborted).toBe(false);
  });

  it('remembers a named reply it does not hold yet, so a run of it that starts here just after stops at once', async () => {
    const { activeRuns, subscriber } = await world();

    subscriber.deliver({ threadId: 'thread-1', messageId: 'reply-1' });
    // An unnamed cancel of a thread that runs nothing here is not remembered: a later reply of it runs.
    subscriber.deliver({ threadId: 'thread-2' });

    expect(activeRuns.start('thread-1', 'reply-1').signal.aborted).toBe(true);
    expect(activeRuns.start('thread-2', 'reply-2').signal.aborted).toBe(false);
  });

  it('quits its connection when the worker shuts down', async () => {
    const { listener, subscriber } = await world();
    await listener.onApplicationShutdown();
    expect(subscriber.quitted).toBe(true);
  });
});
