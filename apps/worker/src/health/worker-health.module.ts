import { Module, OnApplicationBootstrap } from '@nestjs/common';
import { APP_FILTER, DiscoveryModule } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { startProcessMetrics } from '@app/observability';
import { ConsumerStatus } from './consumer-status';
import { DetailErrorFilter } from './detail-error.filter';
import { WorkerHealthController } from './worker-health.controller';

/** The worker's probes and metrics, served on WORKER_HEALTH_PORT when main.ts listens there (0 = none). */
@Module({
  imports: [DiscoveryModule, TerminusModule],
  controllers: [WorkerHealthController],
  providers: [ConsumerStatus, { provide: APP_FILTER, useClass: DetailErrorFilter }],
})
export class WorkerHealthModule implements OnApplicationBootstrap {
  onApplicationBootstrap(): void {
    startProcessMetrics('worker');
  }
}
