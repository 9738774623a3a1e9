import { WorkerHost } from '@nestjs/bullmq';
import { DiscoveryService } from '@nestjs/core';
import { Worker } from 'bullmq';
import { ConsumerStatus } from './consumer-status';

class FakeProcessor extends WorkerHost {
  async process(): Promise<void> {}
}

function processor(worker?: Partial<Worker>): FakeProcessor {
  const host = new FakeProcessor();
  if (worker) Object.assign(host, { _worker: worker });
  return host;
}

const worker = (name: string, running: boolean, paused = false): Partial<Worker> => ({
  name,
  isRunning: () => running,
  isPaused: () => paused,
});

function statusOf(instances: unknown[]): ConsumerStatus {
  const discovery = {
    getProviders: () => instances.map((instance, index) => ({ instance, name: `Provider${index}` })),
  } as unknown as DiscoveryService;
  return new ConsumerStatus(discovery);
}

describe('ConsumerStatus', () => {
  it('reports each BullMQ consumer by queue name, ignoring other providers', () => {
    const status = statusOf([
      processor(worker('agent-run', true)),
      processor(worker('source-sync', false)),
      processor(worker('other', true, true)),
      { notAProcessor: true },
      undefined,
    ]);
    expect(status.states()).toEqual({ 'agent-run': 'running', 'source-sync': 'stopped', other: 'paused' });
  });

  it('reports a processor whose worker is not created yet as starting', () => {
    expect(statusOf([processor()]).states()).toEqual({ Provider0: 'starting' });
  });
});
