import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ConsumerStatus } from './consumer-status';
import { WorkerHealthServer } from './worker-health.server';

/** The worker's probes and metrics on WORKER_HEALTH_PORT. */
@Module({
  imports: [DiscoveryModule],
  providers: [ConsumerStatus, WorkerHealthServer],
})
export class WorkerHealthModule {}
