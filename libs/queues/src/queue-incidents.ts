import { WorkerHost } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { Job, Queue } from 'bullmq';
import { redisIncidents } from '@app/redis';

/**
 * BullMQ's side of RedisIncidents. A Queue or Worker re-emits its connections' errors as its own 'error' event
 * and, with nobody listening, BullMQ prints each with its stack: during a Cluster failover a worker printed
 * dozens. Every queue and consumer of the process reports here instead, so one line sums the failover up; the
 * jobs a consumer takes up again (stalled ones) are counted in that line, and every retried job gets a line of
 * its own (before, a retry was not logged at all).
 */
@Injectable()
export class QueueIncidents implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Queues');

  constructor(private readonly discovery: DiscoveryService) {}

  onApplicationBootstrap(): void {
    // A provider exported through several modules may be listed more than once.
    const seen = new Set<unknown>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (seen.has(instance)) continue;
      seen.add(instance);
      if (instance instanceof Queue) {
        instance.on('error', (error) => redisIncidents.error(`queue:${instance.name}`, error));
      } else if (instance instanceof WorkerHost) {
        // A processor whose consumer was not started (e.g. not this process's role) has no worker.
        const worker = (() => {
          try {
            return instance.worker;
          } catch {
            return undefined;
          }
        })();
        if (!worker) continue;
        const queue = worker.name;
        worker.on('error', (error: Error) => redisIncidents.error(`worker:${queue}`, error));
        worker.on('stalled', () => redisIncidents.resumed(queue));
        worker.on('failed', (job: Job | undefined, error: Error) => {
          if (!job || job.attemptsMade >= (job.opts.attempts ?? 1)) return;
          redisIncidents.retried(queue);
          this.logger.warn(
            {
              queue,
              jobId: job.id,
              messageId: (job.data as { messageId?: unknown } | undefined)?.messageId,
              attempt: job.attemptsMade,
              attempts: job.opts.attempts,
              error: error.message,
            },
            'job retried',
          );
        });
      }
    }
  }

  onApplicationShutdown(): void {
    redisIncidents.flush();
  }
}
