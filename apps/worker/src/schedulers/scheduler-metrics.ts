import { Injectable } from '@nestjs/common';
import { Counter, register } from 'prom-client';

/**
 * Periodic work a worker put back because Redis had lost it, by queue: job schedulers (`routine-firing`,
 * `source-sync`), and erasures left without a job to run (`erasure`).
 */
@Injectable()
export class SchedulerMetrics {
  readonly repaired =
    (register.getSingleMetric('job_schedulers_repaired_total') as Counter<'queue'> | undefined) ??
    new Counter({
      name: 'job_schedulers_repaired_total',
      help: 'Job schedulers (and erasure jobs) set again from PostgreSQL after Redis lost them, by queue',
      labelNames: ['queue'],
    });
}
