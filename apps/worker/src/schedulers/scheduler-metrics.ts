import { Injectable } from '@nestjs/common';
import { Counter, register } from 'prom-client';

/** Job schedulers a worker put back because Redis had lost them, by queue (`routine-firing`, `source-sync`). */
@Injectable()
export class SchedulerMetrics {
  readonly repaired =
    (register.getSingleMetric('job_schedulers_repaired_total') as Counter<'queue'> | undefined) ??
    new Counter({
      name: 'job_schedulers_repaired_total',
      help: 'Job schedulers set again from PostgreSQL after Redis lost them, by queue',
      labelNames: ['queue'],
    });
}
