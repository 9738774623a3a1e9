import { Injectable } from '@nestjs/common';
import { Counter, register } from 'prom-client';

/**
 * Routine firings by outcome: `fired` (a thread started), `duplicate` (that slot had already fired: a retried
 * or doubled job), `stopped` (the routine can no longer fire and was deactivated), `skipped` (inactive or gone).
 */
@Injectable()
export class RoutineMetrics {
  readonly firings =
    (register.getSingleMetric('routine_firings_total') as Counter<'outcome'> | undefined) ??
    new Counter({
      name: 'routine_firings_total',
      help: 'Routine firings, by outcome (fired, duplicate, stopped, skipped)',
      labelNames: ['outcome'],
    });
}
