import { WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { Worker } from 'bullmq';
import { ActiveRuns, RunHandedBackError } from '@app/agent';
import { HandBackOnStop } from './hand-back-on-stop';

class QueueConsumer extends WorkerHost {
  async process(): Promise<void> {}
}

/** A consumer whose BullMQ worker records how it was paused (`started: false`: its worker does not exist yet). */
function consumer(name: string, pauses: string[], started = true): QueueConsumer {
  const host = new QueueConsumer();
  const worker = {
    pause: (doNotWaitActive?: boolean) => (pauses.push(`${name} ${doNotWaitActive}`), Promise.resolve()),
  };
  if (started) Object.assign(host, { _worker: worker as unknown as Worker });
  return host;
}

/** HandBackOnStop over the given providers and the real ActiveRuns. */
function world(providers: unknown[]) {
  const discovery = {
    getProviders: () => providers.map((instance) => ({ instance })),
  } as unknown as DiscoveryService;
  const activeRuns = new ActiveRuns();
  return { handBack: new HandBackOnStop(discovery, activeRuns), activeRuns };
}

/** A run that unwinds `afterMs` after it is aborted, as a run moving its job back does; records why it stopped. */
function running(activeRuns: ActiveRuns, threadId: string, afterMs: number, reasons: unknown[]): void {
  const controller = activeRuns.start(threadId, `reply-of-${threadId}`);
  controller.signal.addEventListener('abort', () => {
    reasons.push(controller.signal.reason);
    setTimeout(() => activeRuns.end(threadId, `reply-of-${threadId}`), afterMs);
  });
}

describe('HandBackOnStop', () => {
  it('stops every started consumer taking jobs without waiting for its active ones, skipping consumers not started', async () => {
    const pauses: string[] = [];
    const { handBack } = world([
      consumer('agent-run', pauses),
      consumer('erasure', pauses),
      consumer('source-sync', pauses, false),
      { notAConsumer: true },
      undefined,
    ]);

    await handBack.run();

    expect(pauses).toEqual(['agent-run true', 'erasure true']);
  });

  it('hands every run in flight back and returns only once each has unwound', async () => {
    const pauses: string[] = [];
    const { handBack, activeRuns } = world([consumer('agent-run', pauses)]);
    const reasons: unknown[] = [];
    running(activeRuns, 'thread-1', 10, reasons);
    running(activeRuns, 'thread-2', 120, reasons);
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

    await handBack.run();

    expect(warned).toHaveBeenCalledWith({ runs: 2 }, 'stopping: runs handed back to the queue');
    warned.mockRestore();

    expect(reasons).toHaveLength(2);
    expect(reasons.every((reason) => reason instanceof RunHandedBackError)).toBe(true);
    expect(activeRuns.size).toBe(0);
    // A job this worker still receives after the pause is handed back as its run starts.
    expect(activeRuns.stopping).toBe(true);
  });
});
