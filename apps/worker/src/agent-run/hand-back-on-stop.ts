import { Injectable, Logger } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { WorkerHost } from '@nestjs/bullmq';
import { ActiveRuns } from '@app/agent';

const POLL_MS = 50;

/**
 * What a stopping worker does before closing (SIGTERM/SIGINT): stop taking jobs, then hand every agent run in
 * flight back to the queue at once, so another worker resumes it at its last stored step within moments
 * instead of after this worker's job lock expires. Replies are never left half-closed: a handed-back run does
 * not end its reply, the next worker does.
 */
@Injectable()
export class HandBackOnStop {
  private readonly logger = new Logger(HandBackOnStop.name);

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly activeRuns: ActiveRuns,
  ) {}

  async run(): Promise<void> {
    await Promise.all(this.consumers().map((host) => host.worker.pause(true)));
    const handedBack = this.activeRuns.handBackAll();
    if (handedBack === 0) return;
    this.logger.warn({ runs: handedBack }, 'stopping: runs handed back to the queue');
    // Each run moves its job back as it unwinds; the process's shutdown deadline bounds the wait.
    while (this.activeRuns.size > 0) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }

  private consumers(): WorkerHost[] {
    return this.discovery
      .getProviders()
      .map((wrapper): unknown => wrapper.instance)
      .filter((instance): instance is WorkerHost => instance instanceof WorkerHost)
      .filter((host) => {
        try {
          return Boolean(host.worker);
        } catch {
          return false; // not started yet: nothing to pause
        }
      });
  }
}
