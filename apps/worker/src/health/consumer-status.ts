import { Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { WorkerHost } from '@nestjs/bullmq';

type ConsumerState = 'running' | 'paused' | 'stopped' | 'starting';

/**
 * The state of every BullMQ consumer (`@Processor` class) of this process, by queue name. Found through
 * Nest's discovery, so processors need no registration of their own to be watched.
 */
@Injectable()
export class ConsumerStatus {
  constructor(private readonly discovery: DiscoveryService) {}

  states(): Record<string, ConsumerState> {
    const states: Record<string, ConsumerState> = {};
    for (const wrapper of this.discovery.getProviders()) {
      const host: unknown = wrapper.instance;
      if (!(host instanceof WorkerHost)) continue;
      let worker;
      try {
        worker = host.worker;
      } catch {
        // The worker is created in onModuleInit: a host without one yet is still starting.
        states[wrapper.name] = 'starting';
        continue;
      }
      states[worker.name] = worker.isPaused() ? 'paused' : worker.isRunning() ? 'running' : 'stopped';
    }
    return states;
  }
}
