import { Injectable } from '@nestjs/common';
import { counter } from '@app/observability';

/**
 * Periodic work a worker put back because Redis had lost it, by queue: job schedulers (`routine-firing`,
 * `source-sync`), and erasures left without a job to run (`erasure`).
 */
@Injectable()
export class SchedulerMetrics {
  readonly repaired = counter(
    'job_schedulers_repaired_total',
    'Job schedulers (and erasure jobs) set again from PostgreSQL after Redis lost them, by queue',
    ['queue'],
  );
}
